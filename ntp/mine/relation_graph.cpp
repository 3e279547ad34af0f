// ntp/mine/relation_graph.cpp: the KB's binary facts as edges both ways (see relation_graph.h).
#include "ntp/mine/relation_graph.h"

#include <algorithm>
#include <cstddef>

namespace ntp {

RelationGraph::RelationGraph(const KnowledgeBase& kb)
    : num_nodes_(kb.constants.size()), num_relations_(kb.predicates.size()) {
  const std::size_t nodes = static_cast<std::size_t>(num_nodes_);
  facts_.assign(static_cast<std::size_t>(num_relations_), 0);
  std::vector<std::size_t> degree(nodes, 0);
  for (const Atom& f : kb.facts) {
    if (f.args.size() != 2) continue;
    ++degree[static_cast<std::size_t>(f.args[0])];
    ++degree[static_cast<std::size_t>(f.args[1])];
    ++facts_[static_cast<std::size_t>(f.predicate)];
  }
  offsets_.assign(nodes + 1, 0);
  for (std::size_t n = 0; n < nodes; ++n) offsets_[n + 1] = offsets_[n] + degree[n];
  edges_.resize(offsets_[nodes]);
  std::vector<std::size_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (const Atom& f : kb.facts) {
    if (f.args.size() != 2) continue;
    const int a = f.args[0], b = f.args[1];
    edges_[fill[static_cast<std::size_t>(a)]++] = {forward_step(f.predicate), b};
    edges_[fill[static_cast<std::size_t>(b)]++] = {backward_step(f.predicate), a};
  }
  sources_.assign(static_cast<std::size_t>(num_steps()), {});
  for (int n = 0; n < num_nodes_; ++n) {
    Edge* first = edges_.data() + offsets_[static_cast<std::size_t>(n)];
    Edge* last = edges_.data() + offsets_[static_cast<std::size_t>(n) + 1];
    std::sort(first, last, [](const Edge& x, const Edge& y) { return x.step < y.step || (x.step == y.step && x.node < y.node); });
    for (const Edge* e = first; e != last; ++e)
      if (e == first || e[-1].step != e->step) sources_[static_cast<std::size_t>(e->step)].push_back(n);
  }
}

EdgeSpan RelationGraph::edges(int node) const {
  const Edge* base = edges_.data();
  return {base + offsets_[static_cast<std::size_t>(node)], base + offsets_[static_cast<std::size_t>(node) + 1]};
}

EdgeSpan RelationGraph::edges(int node, int step) const {
  const EdgeSpan all = edges(node);
  const Edge* first = std::lower_bound(all.first, all.last, step, [](const Edge& e, int s) { return e.step < s; });
  const Edge* last = std::upper_bound(first, all.last, step, [](int s, const Edge& e) { return s < e.step; });
  return {first, last};
}

PathWalker::PathWalker(const RelationGraph& graph)
    : graph_(graph),
      stamp_(static_cast<std::size_t>(graph.num_nodes()), 0),
      position_(static_cast<std::size_t>(graph.num_nodes()), 0) {}

void PathWalker::reach(int y, int x, int first_middle, int second_middle) {
  if (y == x || y == first_middle || y == second_middle) return;
  total_ += 1;
  const std::size_t at = static_cast<std::size_t>(y);
  if (stamp_[at] == walks_) {
    counts_[static_cast<std::size_t>(position_[at])] += 1;
    return;
  }
  stamp_[at] = walks_;
  position_[at] = static_cast<int>(ends_.size());
  ends_.push_back(y);
  counts_.push_back(1);
}

const std::vector<int>& PathWalker::walk(const std::vector<int>& steps, int x) {
  ends_.clear();
  counts_.clear();
  total_ = 0;
  if (++walks_ == 0) {  // wrapped around: forget every mark
    std::fill(stamp_.begin(), stamp_.end(), 0u);
    walks_ = 1;
  }
  for (const Edge& e : graph_.edges(x, steps[0])) {
    const int z1 = e.node;
    if (steps.size() == 1) {
      reach(z1, x, -1, -1);
      continue;
    }
    if (z1 == x) continue;
    for (const Edge& f : graph_.edges(z1, steps[1])) {
      const int z2 = f.node;
      if (steps.size() == 2) {
        reach(z2, x, z1, -1);
        continue;
      }
      if (z2 == x || z2 == z1) continue;
      for (const Edge& g : graph_.edges(z2, steps[2])) reach(g.node, x, z1, z2);
    }
  }
  return ends_;
}

std::vector<int> reversed_path(const std::vector<int>& steps) {
  std::vector<int> back(steps.rbegin(), steps.rend());
  for (int& s : back) s = reversed_step(s);
  return back;
}

}  // namespace ntp
