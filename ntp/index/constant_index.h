// ntp/index/constant_index.h: fact search through the constants, for large KBs.
//
// A key distance splits into a predicate part and one part per ground
// position (fact_index.h):
//     D(q, f) = d(θ_p, θ_pf) + cd(q, f),   cd(q, f) = Σ_i d(θ_{q_i}, θ_{f_i}).
// KBs have few predicates (WN11: 11) and many constants (38,588), so the
// search runs per *constant tuple* (the goal's constants at its ground
// positions) and per KB predicate g: the facts of g with the smallest cd,
// then each query adds its own d(θ_p, θ_g) and merges the groups. Every rule
// body q_r(Y, X) of a goal p(X, Y) shares one tuple, so one search serves the
// goal's twenty rules.
//
// Which facts are looked at (Lookup):
//   Scan     all of them, with cd from one matrix-vector product per goal
//            constant: exact, O(C d + F) per tuple, nothing to maintain.
//   Hnsw     candidates are the facts that hold, at some ground position i,
//            one of the M constants nearest to the goal's constant there,
//            found in an HNSW graph over the constant embeddings (100-d,
//            C points, instead of 300-d fact keys). A fact that is not a
//            candidate has every cd term beyond its position's M-th
//            neighbour, r_i, so if the k-th best found is within
//            min_g d(θ_p, θ_g) + Σ_i r_i the answer is exact ("certified");
//            otherwise M doubles, up to max_neighbours. The graph is
//            searched with a beam of beam_per_neighbour x M (4 x M: the
//            first look-ups are many and narrow, the wider ones few).
//   KdTree   as Hnsw with an exact k-d tree, widening until certified: exact.
//   Listed   as KdTree, with each constant's nearest constants listed once
//            (ConstantBalls: one brute-force pass) and wider look-ups by brute
//            force: exact, and the fastest while the embeddings stay put.
// A look-up is gathered a growing prefix at a time (its 1, 2, 4, ...
// nearest constants at each position), and no further once the facts
// gathered certify every query of the tuple: a fact not gathered is beyond
// the nearest constant not gathered at every position, so the hubs further
// out need not be read. An exact look-up that cannot certify doubles M and
// gathers only the constants the narrower ones did not reach. A constant
// shared by many tuples of one search (ranking p(s, ?) asks p(s, c) and
// q(c, s) for thousands of c) gets its distance to every constant computed
// once, so gathering the facts of a hub near the other constant costs a
// look-up per fact.
// A gathered fact is dropped unscored once, for every query of its tuple,
// `want` facts already found are nearer (exact: the answers do not change);
// hubs hold thousands of facts, of which few can matter. The first look-up
// of a constant is kept until some constant moves: the several searches of
// a training step or of a ranked side share it.
// Predicate rows never enter the graph, so the many steps that move
// predicate embeddings cost no maintenance; a moved constant is relinked in
// place (ann::Hnsw::update), every `update_every` steps. Candidates are
// always scored with the current embeddings (a live float copy).
#pragma once

#include "ann/index.h"
#include "ntp/index/constant_balls.h"
#include "ntp/index/fact_index.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ann {
class Hnsw;
}

namespace ntp {

class ConstantIndex : public FactIndex {
 public:
  enum class Lookup { Scan, KdTree, Hnsw, Listed };
  ConstantIndex(const Model& model, Lookup lookup, const FactIndexOptions& options = {});
  ~ConstantIndex() override;

  void all_moved() override;
  bool exact() const override { return lookup_ != Lookup::Hnsw; }
  std::string name() const override;
  const ConstantBalls* constant_lists() const override { return lists_.get(); }

 protected:
  std::vector<std::vector<int>> search(const std::vector<FactQuery>& queries, int want) override;
  void apply_moved(const MovedRows& rows) override;

 private:
  // The steps of search(), in constant_index.cpp.
  struct TupleQueries;     // the queries sharing one constant tuple
  struct TupleSearch;      // one tuple's search: gather, rank, widen (per thread)
  struct CandidateSource;  // where a tuple's candidate facts come from:
  struct ScanAll;          //   every fact of the arity
  struct NearConstants;    //   the facts near the tuple's constants in the graph
  std::unique_ptr<CandidateSource> candidate_source(const std::vector<int>& ground,
                                                    const std::vector<TupleQueries>& tuples) const;
  int widest_lookup() const;  // the most neighbours a look-up may ask for

  // The m constants nearest to constant c in the graph, and the largest of
  // their current squared distances to c (infinity when the graph holds < m).
  struct Neighbourhood {
    std::vector<int> constants;   // c first
    std::vector<float> distances; // (constants): squared distance to c
    std::vector<float> beyond;    // (constants): min of distances[j..]: no constant from the j-th on is nearer
    float radius = 0;
    void set_beyond();            // from distances
  };
  Neighbourhood neighbourhood(int c, int m) const;
  Neighbourhood listed_neighbourhood(int c, int m) const;  // from lists_, m <= its length
  // The first look-ups (options_.neighbours) of these constants, made once
  // between moves of the constants and shared by the searches in between
  // (the searches of one training step, or of one ranked side, ask about
  // the same constants). Safe to call from several threads.
  std::vector<std::shared_ptr<const Neighbourhood>> first_lookups(const std::vector<int>& constants) const;
  void forget_lookups();

  // Facts holding constant c at position `position` among the facts of `arity`.
  struct Adjacency {
    std::vector<int> offsets;  // (C + 1)
    std::vector<int> facts;    // facts with constant c at offsets[c] .. offsets[c + 1]
    std::vector<int> predicates;  // (facts): each one's predicate, and
    std::vector<int> args;        // (facts * arity) its arguments, in the same order (read in one stream)
  };
  Adjacency make_adjacency(const std::vector<int>& facts, int position, int num_constants) const;
  const Adjacency& adjacency(int arity, int position) const;
  void copy_constant(int c);
  void rebuild_graph();

  Lookup lookup_;
  FactIndexOptions options_;
  int update_every_;            // steps between relinks of the moved constants
  ann::RowMatrix points_;       // (C, d) float copy of the constant table, always current
  std::vector<float> norms_;    // (C): each row's norm, always current
  std::vector<std::vector<Adjacency>> adjacency_;  // [arity][position]
  std::unique_ptr<ann::Index> graph_;  // Hnsw, KdTree or Listed lookups: over points_, possibly stale
  const ann::Hnsw* hnsw_ = nullptr;    // graph_ when it is an HNSW graph (searched with a beam per neighbour)
  std::unique_ptr<ConstantBalls> lists_;  // Listed lookups: each constant's nearest, current
  std::vector<int> pending_;           // constants moved since the graph last saw them
  std::vector<char> is_pending_;       // (C)
  int steps_since_update_ = 0;
  mutable std::mutex first_lookups_mutex_;
  mutable std::unordered_map<int, std::shared_ptr<const Neighbourhood>> first_lookups_;  // constant -> its first look-up
};

}  // namespace ntp
