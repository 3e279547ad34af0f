// ntp/mine/constant_rules.h: rules with a constant (mined_rule.h), such as
// h(X, c) :- r(X, d), counted on the facts and applied to them.
//
// Counting groups the head facts by their constant: for a head step hs (h
// walked forward: facts h(V, c); backward: h(c, V)) and a constant c, the
// nodes V that reach c by hs are gathered and every edge of every V counted
// once (one array per thread over all (step, node) pairs, and one over
// steps). An edge (step, d) that at least min_support of them have is the
// body of h(V, c) :- step(V, d); a step that many have, of h(V, c) :-
// step(V, Z). The work is the sum over nodes of their head edges times their
// edges (FB15k-237: 2e8 array increments), the memory one array a thread.
//
// Constants that the readers would take for variables (parse.h,
// is_variable_name) are left out: their rules could not be written.
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/mine/mined_rule.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/relation_graph.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ntp {

class MineProgress;

// The rules with a constant that pass o.min_support and o.min_confidence
// (head coverage bounds chain rules only: a rule with a constant covers the
// facts of one constant), at most o.max_constant_rules of them (the support
// they need raised until they fit), in no particular order; empty if stopped.
std::vector<MinedRule> mine_constant_rules(const KnowledgeBase& kb, const RelationGraph& g, const MineOptions& o,
                                           MineProgress& progress);

// The rules with a constant among a rule list, indexed by what their body
// asks of V and by their constant, to apply them at a side h(s, ?) or h(?, o).
// A rule h(V, c) :- body(V) predicts every atom h(v, c) whose v the body
// holds for (v != c): asked h(v, ?), it predicts c when v satisfies the body;
// asked h(?, c), every v that does (AnyBURL applies them both ways too).
class ConstantRuleIndex {
 public:
  // Of head `only_head` alone when it is not -1.
  ConstantRuleIndex(const std::vector<MinedRule>& rules, int num_predicates, int only_head = -1);
  bool empty() const { return count_ == 0; }

  // Calls each(index into the rules, the constant predicted) for every
  // prediction of a rule with head `head` at argument `open`, the other
  // argument being `known`.
  template <class Each>
  void for_each_applying(const RelationGraph& g, int head, int open, int known, Each each) const {
    from_body(g, by_side_[static_cast<std::size_t>(2 * head + open)], known, each);
    from_constant(g, by_side_[static_cast<std::size_t>(2 * head + 1 - open)], known, each);
  }

 private:
  struct Entry {
    std::size_t rule = 0;
    int constant = 0;  // the head's
  };
  struct Body {
    std::size_t rule = 0;
    int step = 0, end = -1;  // the body's step from V, and its constant (-1: free)
  };
  using Map = std::unordered_map<std::uint64_t, std::vector<Entry>>;
  struct Lists {  // the rules of one head whose constant is at one argument
    Map by_edge;  // (step, d) -> rules h(V, c) :- step(V, d)
    Map by_step;  // step -> rules h(V, c) :- step(V, Z)
    std::unordered_map<int, std::vector<Body>> by_constant;  // c -> its rules
  };
  static std::uint64_t edge_key(int step, int node) {
    return (static_cast<std::uint64_t>(step) << 32) | static_cast<std::uint32_t>(node);
  }

  // Asked for c, V known: the rules whose body V satisfies.
  template <class Each>
  static void from_body(const RelationGraph& g, const Lists& lists, int v, Each& each) {
    if (lists.by_edge.empty() && lists.by_step.empty()) return;
    auto apply = [&](const Map& m, std::uint64_t key) {
      const auto it = m.find(key);
      if (it == m.end()) return;
      for (const Entry& e : it->second)
        if (e.constant != v) each(e.rule, e.constant);
    };
    int last_step = -1;
    for (const Edge& f : g.edges(v)) {  // sorted by step: each step once for the rules with a free Z
      apply(lists.by_edge, edge_key(f.step, f.node));
      if (f.step != last_step) apply(lists.by_step, static_cast<std::uint64_t>(f.step));
      last_step = f.step;
    }
  }

  // Asked for V, c known: every V the body of a rule with constant c holds for.
  template <class Each>
  static void from_constant(const RelationGraph& g, const Lists& lists, int c, Each& each) {
    const auto it = lists.by_constant.find(c);
    if (it == lists.by_constant.end()) return;
    for (const Body& b : it->second) {
      if (b.end >= 0) {
        for (const Edge& e : g.edges(b.end, reversed_step(b.step)))
          if (e.node != c) each(b.rule, e.node);
        continue;
      }
      for (int v : g.sources(b.step))
        if (v != c) each(b.rule, v);
    }
  }

  std::vector<Lists> by_side_;  // (2 * predicates): head, then the argument that is the constant
  std::size_t count_ = 0;
};

}  // namespace ntp
