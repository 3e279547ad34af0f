// ntp/mine/constant_rules.cpp: rules with a constant (see constant_rules.h).
#include "ntp/mine/constant_rules.h"

#include "ntp/kb/parse.h"
#include "ntp/mine/progress.h"

#include <omp.h>

#include <algorithm>
#include <map>

namespace ntp {
namespace {

bool reaches(const RelationGraph& g, int from, int step, int to) {
  const EdgeSpan e = g.edges(from, step);
  return std::binary_search(e.begin(), e.end(), Edge{step, to},
                            [](const Edge& a, const Edge& b) { return a.node < b.node; });
}

// shared[s][t]: the nodes with an edge by step s and one by step t.
std::vector<std::vector<long long>> steps_shared(const RelationGraph& g) {
  const auto n = static_cast<std::size_t>(g.num_steps());
  std::vector<std::vector<long long>> shared(n, std::vector<long long>(n, 0));
  std::vector<int> steps;
  for (int v = 0; v < g.num_nodes(); ++v) {
    steps.clear();
    for (const Edge& e : g.edges(v))
      if (steps.empty() || steps.back() != e.step) steps.push_back(e.step);
    for (int s : steps)
      for (int t : steps) ++shared[static_cast<std::size_t>(s)][static_cast<std::size_t>(t)];
  }
  return shared;
}

// A rule with a constant as counted, before it is kept: 40 bytes, as
// FB15k-237 has 14 million of support 2 or more.
struct ConstantRule {
  int head_step = 0, constant = 0, step = 0, end = -1;
  long long support = 0;
  double pairs = 0, pca = 0;
};

MinedRule to_mined_rule(const ConstantRule& k, const RelationGraph& g) {
  MinedRule r;
  r.head = step_relation(k.head_step);
  r.constant_arg = is_backward(k.head_step) ? 0 : 1;
  r.head_constant = k.constant;
  r.body = {k.step};
  r.body_constant = k.end;
  r.support = k.support;
  r.body_pairs = k.pairs;
  r.pca_pairs = k.pca;
  set_measures(r, g.facts(r.head));
  return r;
}

// The least support that keeps at most `budget` of the rules.
long long support_floor(const std::vector<std::vector<ConstantRule>>& per_thread, long long budget) {
  std::map<long long, long long> rules_of_support;
  for (const auto& part : per_thread)
    for (const ConstantRule& k : part) ++rules_of_support[k.support];
  long long kept = 0;
  for (auto it = rules_of_support.rbegin(); it != rules_of_support.rend(); ++it) {
    if (kept + it->second > budget) return it->first + 1;
    kept += it->second;
  }
  return 0;
}

// What one thread reuses between groups: a count per (step, node) and per step.
struct GroupCounts {
  std::vector<int> by_edge, by_step;  // (steps * nodes), (steps)
  std::vector<std::size_t> touched_edges;
  std::vector<int> touched_steps;
};

// One group's rules: head step `hs` into constant c (V = the nodes reaching c by hs).
class Group {
 public:
  Group(const RelationGraph& g, const std::vector<std::vector<long long>>& shared, const MineOptions& o, int hs, int c)
      : g_(g), shared_(shared), o_(o), hs_(hs), c_(c) {}

  void count(GroupCounts& k) const {
    const auto nodes = static_cast<std::size_t>(g_.num_nodes());
    for (const Edge& into : g_.edges(c_, reversed_step(hs_))) {
      const int v = into.node;
      if (v == c_) continue;
      int last_step = -1;
      for (const Edge& f : g_.edges(v)) {
        if (f.step == hs_ && f.node == c_) continue;  // the head fact itself
        const std::size_t key = static_cast<std::size_t>(f.step) * nodes + static_cast<std::size_t>(f.node);
        if (k.by_edge[key]++ == 0) k.touched_edges.push_back(key);
        if (f.step != last_step && f.step != hs_ && k.by_step[static_cast<std::size_t>(f.step)]++ == 0)
          k.touched_steps.push_back(f.step);
        last_step = f.step;
      }
    }
  }

  // The rules the counts support, into `out`; the counts reset.
  void emit(GroupCounts& k, const KnowledgeBase& kb, std::vector<ConstantRule>& out) const {
    const auto nodes = static_cast<std::size_t>(g_.num_nodes());
    for (std::size_t key : k.touched_edges) {
      const int support = k.by_edge[key];
      k.by_edge[key] = 0;
      const int step = static_cast<int>(key / nodes), d = static_cast<int>(key % nodes);
      if (support >= o_.min_support && !is_variable_name(kb.constants.name(d))) add_rule(step, d, support, out);
    }
    for (int step : k.touched_steps) {
      const int support = k.by_step[static_cast<std::size_t>(step)];
      k.by_step[static_cast<std::size_t>(step)] = 0;
      if (support >= o_.min_support) add_rule(step, -1, support, out);
    }
    k.touched_edges.clear();
    k.touched_steps.clear();
  }

 private:
  // The rule's pairs (the V its body holds for, V != c) and PCA pairs (of
  // those, the V with an edge by the head step).
  void add_rule(int step, int d, long long support, std::vector<ConstantRule>& out) const {
    double pairs = 0, pca = 0;
    const bool c_holds = d >= 0 ? reaches(g_, c_, step, d) : !g_.edges(c_, step).empty();
    const bool c_pca = c_holds && !g_.edges(c_, hs_).empty();
    if (d >= 0) {
      for (const Edge& e : g_.edges(d, reversed_step(step))) pairs += 1, pca += g_.edges(e.node, hs_).empty() ? 0 : 1;
    } else {
      pairs = static_cast<double>(g_.sources(step).size());
      pca = static_cast<double>(shared_[static_cast<std::size_t>(step)][static_cast<std::size_t>(hs_)]);
    }
    pairs -= c_holds ? 1 : 0;
    if (static_cast<double>(support) >= o_.min_confidence * (pairs + kConstantRulePrior))  // set_measures' confidence
      out.push_back({hs_, c_, step, d, support, pairs, pca - (c_pca ? 1 : 0)});
  }

  const RelationGraph& g_;
  const std::vector<std::vector<long long>>& shared_;
  const MineOptions& o_;
  int hs_, c_;
};

}  // namespace

std::vector<MinedRule> mine_constant_rules(const KnowledgeBase& kb, const RelationGraph& g, const MineOptions& o,
                                           MineProgress& progress) {
  const std::vector<std::vector<long long>> shared = steps_shared(g);
  std::vector<std::vector<ConstantRule>> per_thread(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
  {
    std::vector<ConstantRule>& out = per_thread[static_cast<std::size_t>(omp_get_thread_num())];
    GroupCounts k;
    k.by_edge.assign(static_cast<std::size_t>(g.num_steps()) * static_cast<std::size_t>(g.num_nodes()), 0);
    k.by_step.assign(static_cast<std::size_t>(g.num_steps()), 0);
#pragma omp for schedule(dynamic, 16)
    for (int c = 0; c < g.num_nodes(); ++c) {
      if (progress.stopped() || is_variable_name(kb.constants.name(c))) {
        progress.add(1);
        continue;
      }
      const EdgeSpan edges = g.edges(c);
      for (const Edge* e = edges.begin(); e != edges.end();) {  // each step out of c: a head step into c
        const int step = e->step;
        const Edge* next = e;
        while (next != edges.end() && next->step == step) ++next;
        if (next - e >= o.min_support) {
          const Group group(g, shared, o, reversed_step(step), c);
          group.count(k);
          group.emit(k, kb, out);
        }
        e = next;
      }
      progress.add(1);
    }
  }
  std::vector<MinedRule> rules;
  if (progress.stopped()) return rules;
  const long long floor = support_floor(per_thread, o.max_constant_rules);
  for (std::vector<ConstantRule>& part : per_thread) {
    for (const ConstantRule& k : part)
      if (k.support >= floor) rules.push_back(to_mined_rule(k, g));
    std::vector<ConstantRule>().swap(part);
  }
  return rules;
}

ConstantRuleIndex::ConstantRuleIndex(const std::vector<MinedRule>& rules, int num_predicates, int only_head)
    : by_side_(2 * static_cast<std::size_t>(num_predicates)) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const MinedRule& r = rules[i];
    if (!has_constant(r) || (only_head >= 0 && r.head != only_head)) continue;
    Lists& lists = by_side_[static_cast<std::size_t>(2 * r.head + r.constant_arg)];
    const int step = r.body.front();
    Map& map = r.body_constant >= 0 ? lists.by_edge : lists.by_step;
    map[r.body_constant >= 0 ? edge_key(step, r.body_constant) : static_cast<std::uint64_t>(step)].push_back({i, r.head_constant});
    lists.by_constant[r.head_constant].push_back({i, step, r.body_constant});
    ++count_;
  }
}

}  // namespace ntp
