// ntp/mine/miner.cpp: counting rules on the facts (see miner.h).
#include "ntp/mine/miner.h"

#include "ntp/mine/constant_rules.h"
#include "ntp/mine/progress.h"
#include "ntp/mine/relation_graph.h"

#include <omp.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <tuple>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace ntp {
namespace {

// A body and a (head, body) pair packed into one integer key: a body's three
// step fields of 16 bits (step + 1, 0 where a shorter body has no step; the
// last step in the lowest field), the head above them.
constexpr int kStepBits = 16;
constexpr std::uint64_t kStepMask = (std::uint64_t{1} << kStepBits) - 1;
constexpr int kMaxBodyAtoms = 3;

std::uint64_t body_code(std::initializer_list<int> steps) {
  std::uint64_t code = 0;
  for (int step : steps) code = (code << kStepBits) | static_cast<std::uint64_t>(step + 1);
  return code;
}
std::vector<int> body_steps(std::uint64_t code) {
  std::vector<int> steps;
  for (int field = kMaxBodyAtoms - 1; field >= 0; --field) {
    const int step = static_cast<int>((code >> (field * kStepBits)) & kStepMask) - 1;
    if (step >= 0) steps.push_back(step);
  }
  return steps;
}
std::uint64_t rule_code(int head, std::uint64_t body) {
  return (static_cast<std::uint64_t>(head) << (kMaxBodyAtoms * kStepBits)) | body;
}
constexpr std::uint64_t kBodyMask = (std::uint64_t{1} << (kMaxBodyAtoms * kStepBits)) - 1;

using Counts = std::unordered_map<std::uint64_t, long long>;

void check_options(const KnowledgeBase& kb, const MineOptions& o) {
  if (o.max_body_atoms < 1 || o.max_body_atoms > kMaxBodyAtoms)
    throw std::invalid_argument("max body atoms is 1, 2 or 3, got " + std::to_string(o.max_body_atoms));
  if (o.min_support < 1) throw std::invalid_argument("min support must be >= 1, got " + std::to_string(o.min_support));
  if (!(o.min_head_coverage >= 0 && o.min_head_coverage <= 1) || !(o.min_confidence >= 0 && o.min_confidence <= 1))
    throw std::invalid_argument("min head coverage and min confidence are in [0, 1]");
  if (o.max_candidates_per_head < 1) throw std::invalid_argument("max candidates per head must be >= 1");
  if (o.rules_per_head < 0) throw std::invalid_argument("rules per head must be >= 0, got " + std::to_string(o.rules_per_head));
  if (!(o.max_body_work >= 1)) throw std::invalid_argument("max body work must be >= 1");
  if (o.max_constant_rules < 0) throw std::invalid_argument("max constant rules must be >= 0");
  if (2 * static_cast<std::uint64_t>(kb.predicates.size()) >= kStepMask)
    throw std::invalid_argument("too many predicates to mine (at most " + std::to_string(kStepMask / 2 - 1) + ")");
}

// What one thread reuses between nodes of the support pass: the steps by
// which each neighbour z of the current y reaches it, grouped by z.
struct Marks {
  std::vector<int> stamp, first;          // (nodes): stamp[z] == y when z neighbours y
  std::vector<std::pair<int, int>> into;  // (z, step from z to y), sorted
  std::vector<std::uint64_t> found;       // bodies of the current fact
};

void mark_neighbours(const RelationGraph& g, int y, Marks& m) {
  m.into.clear();
  for (const Edge& e : g.edges(y)) m.into.emplace_back(e.node, reversed_step(e.step));
  std::sort(m.into.begin(), m.into.end());
  for (std::size_t i = 0; i < m.into.size(); ++i) {
    const int z = m.into[i].first;
    if (i == 0 || m.into[i - 1].first != z) m.stamp[static_cast<std::size_t>(z)] = y, m.first[static_cast<std::size_t>(z)] = static_cast<int>(i);
  }
}

// Each body found once.
void finish_found(Marks& m) {
  std::sort(m.found.begin(), m.found.end());
  m.found.erase(std::unique(m.found.begin(), m.found.end()), m.found.end());
}

// Every body of at most `max_atoms` steps that leads from x to y, except
// the fact h(x, y) itself, into m.found, each once.
void bodies_of_fact(const RelationGraph& g, int head, int x, int y, int max_atoms, Marks& m) {
  m.found.clear();
  auto steps_into_y = [&](int z, auto&& each) {
    for (std::size_t i = static_cast<std::size_t>(m.first[static_cast<std::size_t>(z)]); i < m.into.size() && m.into[i].first == z; ++i)
      each(m.into[i].second);
  };
  auto reaches_y = [&](int z) { return m.stamp[static_cast<std::size_t>(z)] == y; };
  steps_into_y(x, [&](int step) {
    if (step != forward_step(head)) m.found.push_back(body_code({step}));
  });
  if (max_atoms < 2) return finish_found(m);
  for (const Edge& e : g.edges(x)) {
    const int z1 = e.node;
    if (z1 == x || z1 == y) continue;
    if (reaches_y(z1)) steps_into_y(z1, [&](int step) { m.found.push_back(body_code({e.step, step})); });
    if (max_atoms < 3) continue;
    for (const Edge& f : g.edges(z1)) {
      const int z2 = f.node;
      if (z2 == x || z2 == y || z2 == z1 || !reaches_y(z2)) continue;
      steps_into_y(z2, [&](int step) { m.found.push_back(body_code({e.step, f.step, step})); });
    }
  }
  finish_found(m);
}

// Pass 1: the support of every (head, body) pair, summed over threads.
Counts count_support(const RelationGraph& g, const MineOptions& o, MineProgress& progress) {
  std::vector<Counts> per_thread(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
  {
    Counts& counts = per_thread[static_cast<std::size_t>(omp_get_thread_num())];
    Marks m;
    m.stamp.assign(static_cast<std::size_t>(g.num_nodes()), -1);
    m.first.assign(static_cast<std::size_t>(g.num_nodes()), 0);
#pragma omp for schedule(dynamic, 64)
    for (int y = 0; y < g.num_nodes(); ++y) {
      if (progress.stopped()) continue;
      mark_neighbours(g, y, m);
      for (const Edge& e : g.edges(y)) {
        if (!is_backward(e.step) || e.node == y) continue;  // e: the fact h(x, y) seen from y
        const int head = step_relation(e.step);
        bodies_of_fact(g, head, e.node, y, o.max_body_atoms, m);
        for (std::uint64_t body : m.found) ++counts[rule_code(head, body)];
      }
      progress.add(1);
    }
  }
  Counts all = std::move(per_thread[0]);
  for (std::size_t t = 1; t < per_thread.size(); ++t)
    for (const auto& [key, n] : per_thread[t]) all[key] += n;
  return all;
}

struct Candidate {
  int head = 0;
  std::uint64_t body = 0;
  long long support = 0;
};

// The (head, body) pairs worth counting: enough support and head coverage,
// at most max_candidates_per_head per head (most support first), by body.
std::vector<Candidate> select_candidates(const Counts& counts, const RelationGraph& g, const MineOptions& o) {
  std::vector<std::vector<Candidate>> by_head(static_cast<std::size_t>(g.num_relations()));
  for (const auto& [key, support] : counts) {
    const int head = static_cast<int>(key >> (kMaxBodyAtoms * kStepBits));
    const double coverage = static_cast<double>(support) / static_cast<double>(g.facts(head));
    if (support >= o.min_support && coverage >= o.min_head_coverage)
      by_head[static_cast<std::size_t>(head)].push_back({head, key & kBodyMask, support});
  }
  std::vector<Candidate> kept;
  for (std::vector<Candidate>& c : by_head) {
    std::sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
      return a.support > b.support || (a.support == b.support && a.body < b.body);
    });
    if (c.size() > static_cast<std::size_t>(o.max_candidates_per_head)) c.resize(static_cast<std::size_t>(o.max_candidates_per_head));
    kept.insert(kept.end(), c.begin(), c.end());
  }
  std::sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
    return a.body < b.body || (a.body == b.body && a.head < b.head);
  });
  return kept;
}

// Whether the head's PCA counts pairs by their subject: AMIE's choice of the
// more functional side (more distinct subjects than objects per fact).
bool pca_by_subject(const RelationGraph& g, int head) {
  return g.sources(forward_step(head)).size() >= g.sources(backward_step(head)).size();
}

bool has_edge(const RelationGraph& g, int node, int step) { return !g.edges(node, step).empty(); }

// Edges a walk of the body from each of its x values would take (an upper
// bound on its pairs): paths counted from the last step back, as the number
// of ways each node continues to some y.
double body_work(const RelationGraph& g, const std::vector<int>& steps) {
  std::vector<double> ways(static_cast<std::size_t>(g.num_nodes()), 0.0), before(ways.size(), 0.0);
  for (int z : g.sources(steps.back())) ways[static_cast<std::size_t>(z)] = static_cast<double>(g.edges(z, steps.back()).size());
  for (std::size_t i = steps.size() - 1; i-- > 0;) {
    std::fill(before.begin(), before.end(), 0.0);
    for (int z : g.sources(steps[i]))
      for (const Edge& e : g.edges(z, steps[i])) before[static_cast<std::size_t>(z)] += ways[static_cast<std::size_t>(e.node)];
    ways.swap(before);
  }
  double work = 0;
  for (double w : ways) work += w;
  return work;
}

// Whether x is in the sample of a body walked with probability `keep`: a
// hash of (seed, body, x), so that the sample is the same on every run.
bool sampled(std::uint64_t seed, std::uint64_t body, int x, double keep) {
  std::uint64_t h = seed ^ (body * 0x9E3779B97F4A7C15ULL) ^ (static_cast<std::uint64_t>(x) * 0xC2B2AE3D27D4EB4FULL);
  h ^= h >> 33, h *= 0xFF51AFD7ED558CCDULL, h ^= h >> 33, h *= 0xC4CEB93F45DB9E63ULL, h ^= h >> 33;
  return static_cast<double>(h >> 11) * 0x1.0p-53 < keep;
}

// Pass 2 for one body: its pairs, and for each of `heads` the pairs on that
// head's PCA side, into `rules` (one per head, counts added).
void count_pairs(const RelationGraph& g, std::uint64_t code, std::vector<MinedRule>& rules, const MineOptions& o,
                 PathWalker& walker) {
  const std::vector<int> steps = body_steps(code);
  const double work = body_work(g, steps);
  const double keep = work > o.max_body_work ? o.max_body_work / work : 1.0;
  std::vector<char> by_subject;
  for (const MinedRule& r : rules) by_subject.push_back(pca_by_subject(g, r.head));
  double pairs = 0;
  std::vector<double> pca(rules.size(), 0.0);
  for (int x : g.sources(steps[0])) {
    if (keep < 1 && !sampled(o.seed, code, x, keep)) continue;
    const std::vector<int>& ys = walker.walk(steps, x);
    pairs += static_cast<double>(ys.size());
    for (std::size_t k = 0; k < rules.size(); ++k) {
      if (by_subject[k]) {
        if (has_edge(g, x, forward_step(rules[k].head))) pca[k] += static_cast<double>(ys.size());
        continue;
      }
      for (int y : ys) pca[k] += has_edge(g, y, backward_step(rules[k].head)) ? 1 : 0;
    }
  }
  for (std::size_t k = 0; k < rules.size(); ++k) {
    rules[k].body_pairs = pairs / keep;
    rules[k].pca_pairs = pca[k] / keep;
    rules[k].estimated = keep < 1;
  }
}

// Pass 2: the rules of every candidate, with their measures.
std::vector<MinedRule> count_candidates(const RelationGraph& g, const std::vector<Candidate>& candidates,
                                        const MineOptions& o, MineProgress& progress, long long& bodies) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // candidates sharing a body
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (i == 0 || candidates[i].body != candidates[i - 1].body) ranges.emplace_back(i, i + 1);
    else ranges.back().second = i + 1;
  bodies = static_cast<long long>(ranges.size());
  std::vector<MinedRule> rules(candidates.size());
#pragma omp parallel
  {
    PathWalker walker(g);
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < ranges.size(); ++b) {
      if (progress.stopped()) continue;
      std::vector<MinedRule> shared;
      for (std::size_t i = ranges[b].first; i < ranges[b].second; ++i) {
        MinedRule r;
        r.head = candidates[i].head;
        r.body = body_steps(candidates[i].body);
        r.support = candidates[i].support;
        shared.push_back(std::move(r));
      }
      count_pairs(g, candidates[ranges[b].first].body, shared, o, walker);
      for (std::size_t i = ranges[b].first; i < ranges[b].second; ++i) rules[i] = std::move(shared[i - ranges[b].first]);
      progress.add(1);
    }
  }
  return rules;
}

}  // namespace

void keep_best_per_head(std::vector<MinedRule>& rules, int n) {
  std::size_t kept = 0;
  int chains = 0, with_constant = 0;  // kept of the current head, of each kind
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (i == 0 || rules[i].head != rules[i - 1].head) chains = with_constant = 0;
    int& run = has_constant(rules[i]) ? with_constant : chains;
    if (run++ >= n) continue;
    if (kept != i) rules[kept] = std::move(rules[i]);  // never onto itself: a self-moved vector may empty
    ++kept;
  }
  rules.resize(kept);
}

MineResult mine_rules(const KnowledgeBase& kb, const MineOptions& o) {
  check_options(kb, o);
  const RelationGraph g(kb);
  MineResult result;
  MineProgress support_progress(o, "support", static_cast<std::size_t>(g.num_nodes()), 1024);
  const Counts counts = count_support(g, o, support_progress);
  if (support_progress.stopped()) return result.stopped = true, result;
  const std::vector<Candidate> candidates = select_candidates(counts, g, o);
  result.candidates = static_cast<long long>(candidates.size());
  std::vector<MinedRule> rules;
  {
    std::size_t bodies = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) bodies += i == 0 || candidates[i].body != candidates[i - 1].body;
    MineProgress counted(o, "pairs", bodies, std::max<std::size_t>(bodies / 200, 1));
    rules = count_candidates(g, candidates, o, counted, result.bodies);
    if (counted.stopped()) return result.stopped = true, result;
  }
  for (MinedRule& r : rules) {
    set_measures(r, g.facts(r.head));
    if (r.confidence >= o.min_confidence) result.rules.push_back(std::move(r));
  }
  if (o.constant_rules) {
    MineProgress counted(o, "constants", static_cast<std::size_t>(g.num_nodes()), 1024);
    std::vector<MinedRule> constant = mine_constant_rules(kb, g, o, counted);
    if (counted.stopped()) {
      result.rules.clear();
      result.stopped = true;
      return result;
    }
    result.rules.insert(result.rules.end(), std::make_move_iterator(constant.begin()), std::make_move_iterator(constant.end()));
  }
  std::sort(result.rules.begin(), result.rules.end(), [](const MinedRule& a, const MinedRule& b) {
    if (a.head != b.head) return a.head < b.head;
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return std::tie(a.body, a.constant_arg, a.head_constant, a.body_constant) <
           std::tie(b.body, b.constant_arg, b.head_constant, b.body_constant);
  });
  if (o.rules_per_head > 0) keep_best_per_head(result.rules, o.rules_per_head);
  for (const MinedRule& r : result.rules) result.estimated += r.estimated, result.with_constant += has_constant(r);
  return result;
}

}  // namespace ntp
