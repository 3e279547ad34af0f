// ntp/mine/relation_graph.h: a binary KB as a graph that can be walked both
// ways, for counting rules (miner.h) and applying them (eval/rule_ranking.h).
//
// Every binary fact r(a, b) is two edges: a --r--> b and b --r^-1--> a. A
// *step* names one of them: step 2r walks r forward (subject to object),
// step 2r + 1 walks it backward. A rule body that chains X to Y, such as
// r(X, Z), s(Y, Z), is then a path of steps: [2r, 2s + 1].
//
// Facts of another arity than 2 have no edges (the miner only mines binary
// rules). Self-loops r(a, a) are kept as edges, but the walks below never
// bind two of a rule's variables to one constant (AnyBURL's object
// identity), so they predict nothing.
#pragma once

#include "ntp/kb/kb.h"

#include <cstddef>
#include <vector>

namespace ntp {

inline int forward_step(int relation) { return 2 * relation; }
inline int backward_step(int relation) { return 2 * relation + 1; }
inline int reversed_step(int step) { return step ^ 1; }
inline int step_relation(int step) { return step >> 1; }
inline bool is_backward(int step) { return (step & 1) != 0; }

struct Edge {
  int step = 0;  // forward_step or backward_step of the fact's relation
  int node = 0;  // the constant at the other end
};

// A read-only view of consecutive edges.
struct EdgeSpan {
  const Edge* first = nullptr;
  const Edge* last = nullptr;
  const Edge* begin() const { return first; }
  const Edge* end() const { return last; }
  std::size_t size() const { return static_cast<std::size_t>(last - first); }
  bool empty() const { return first == last; }
};

class RelationGraph {
 public:
  explicit RelationGraph(const KnowledgeBase& kb);

  int num_nodes() const { return num_nodes_; }
  int num_relations() const { return num_relations_; }
  int num_steps() const { return 2 * num_relations_; }

  // Every edge leaving `node`, sorted by (step, node).
  EdgeSpan edges(int node) const;
  // The edges leaving `node` by `step`: its neighbours that way.
  EdgeSpan edges(int node, int step) const;
  // The nodes with at least one edge by `step`, ascending (a relation's
  // subjects for a forward step, its objects for a backward one).
  const std::vector<int>& sources(int step) const { return sources_[static_cast<std::size_t>(step)]; }
  // Binary facts of `relation`.
  long long facts(int relation) const { return facts_[static_cast<std::size_t>(relation)]; }

 private:
  int num_nodes_ = 0, num_relations_ = 0;
  std::vector<std::size_t> offsets_;  // (nodes + 1) into edges_
  std::vector<Edge> edges_;
  std::vector<std::vector<int>> sources_;  // (2 * relations)
  std::vector<long long> facts_;           // (relations)
};

// Walks a rule body from one end: the distinct y that a path of one to three
// steps leads to from x through nodes that are all distinct, x and y too
// (object identity), and how many such paths end at each. Reuses its
// buffers between walks; one per thread.
class PathWalker {
 public:
  explicit PathWalker(const RelationGraph& graph);
  // Valid until the next walk.
  const std::vector<int>& walk(const std::vector<int>& steps, int x);
  // The last walk's paths ending at each of its ends (parallel to them), and
  // in all: a rule's groundings from x, and their share reaching each y.
  const std::vector<double>& path_counts() const { return counts_; }
  double total_paths() const { return total_; }

 private:
  // Counts a path to y unless y is x or one of the path's middle nodes (-1: none).
  void reach(int y, int x, int first_middle, int second_middle);
  const RelationGraph& graph_;
  std::vector<unsigned> stamp_;  // (nodes): stamp_[y] == walks_ once the current walk reached y
  std::vector<int> position_;    // (nodes): where in ends_ a node reached by the current walk is
  unsigned walks_ = 0;
  std::vector<int> ends_;
  std::vector<double> counts_;  // (ends_)
  double total_ = 0;
};

// The same path walked from its other end: the steps reversed, in reverse order.
std::vector<int> reversed_path(const std::vector<int>& steps);

}  // namespace ntp
