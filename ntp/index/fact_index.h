// ntp/index/fact_index.h: which facts an `or` step expands (the "2.0" of NTP 2.0).
//
// A goal such as locatedIn(palau, Z) is compared with facts only at its ground
// positions, so its search key is the concatenation of the embeddings there,
// [θ_locatedIn ; θ_palau], and a fact's key is built from the same positions.
// The k facts with the nearest keys (squared L2) are the ones whose proof
// paths get built; NTP 2.0 shows that with k = 1 little is lost, because the
// best proof's score max_f min_i k(θ_gi, θ_fi) tends to come from the nearest
// fact. The squared distance of two keys is a sum over positions,
//     ‖key(goal) - key(fact)‖² = d(θ_p, θ_p') + Σ_ground d(θ_c, θ_c'),
// which every engine below exploits in its own way (fact_index.cpp has the
// one function that computes it).
//
// FactIndex is the one interface the prover reaches facts through. Each engine
// owns its freshness policy: training reports after every optimiser step which
// embedding rows moved (embeddings_moved), and the engine decides what to
// redo. Engines (make_fact_index):
//   table   exact, small vocabularies: tabulated symbol distances, rebuilt
//           when rows moved (table_index.h);
//   brute   exact scan over every fact, from a live copy of the constant
//           table (constant_index.h);
//   hnsw    approximate: an HNSW graph over the *constants*; a goal's
//           candidate facts are those whose constants are near the goal's,
//           and moved constants are relinked in place (constant_index.h);
//   kdtree  as hnsw, with an exact k-d tree over the constants;
//   exact   as hnsw, with each constant's nearest constants listed once by
//           brute force: exact and fast for a model that no longer moves
//           (evaluation; training would relist them after every step);
//   auto    table when its C x C table fits, else hnsw.
#pragma once

#include "ntp/model/model.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ntp {

class ConstantBalls;  // constant_balls.h

// Facts hidden from a goal's proofs: in training, the fact being proven (so
// that it cannot prove itself) and, with pair masking (TrainingMask), every other
// fact between the same constants. Usually none or one, so a plain list; it
// converts from one fact id (-1 = none), as most callers hold one.
struct MaskedFacts {
  std::vector<int> ids;
  MaskedFacts() = default;
  MaskedFacts(int id) {  // NOLINT: implicit, so that {atom, -1} and {atom, f} read as before
    if (id >= 0) ids.push_back(id);
  }
  bool contains(int fact) const { return std::find(ids.begin(), ids.end(), fact) != ids.end(); }
  int size() const { return static_cast<int>(ids.size()); }
};

// The question asked of the index: predicate row, and for each argument a
// constant id or -1 (a variable, not compared).
struct FactQuery {
  int predicate_row = -1;
  std::vector<int> args;
  MaskedFacts masked;  // fact ids never to return
};

// The embedding rows an optimiser step changed (Parameter::touched before the
// step): rows of Model::predicates and of Model::constants.
struct MovedRows {
  std::vector<int> predicates;
  std::vector<int> constants;
};

// The pattern a query asks in: its arity, then its ground positions
// (p(a, X) -> {2, 0}). nearest() takes one pattern per call.
std::vector<int> pattern_key(const FactQuery& q);


class FactIndex {
 public:
  virtual ~FactIndex() = default;
  FactIndex(const FactIndex&) = delete;
  FactIndex& operator=(const FactIndex&) = delete;

  // For each query, up to k fact ids, nearest key first, never one of the
  // query's masked facts; k = 0 returns every fact of the query's arity (exhaustive
  // NTP). Queries must share one pattern (arity and ground positions). Safe
  // to call from several threads at once, but not during embeddings_moved.
  std::vector<std::vector<int>> nearest(const std::vector<FactQuery>& queries, int k);

  // Rows that moved since the last call; the engine decides what to redo now
  // or later. Call between searches, from one thread.
  void embeddings_moved(const MovedRows& rows);
  // Everything may have moved (e.g. embeddings loaded or replaced).
  virtual void all_moved() = 0;

  // True when nearest() returns exactly the nearest keys (ties by fact id).
  virtual bool exact() const = 0;
  virtual std::string name() const = 0;
  // Each constant's nearest constants, when the engine lists them (exact):
  // ranking reuses them rather than list them again.
  virtual const ConstantBalls* constant_lists() const { return nullptr; }

  const Model& model() const { return model_; }
  FactIndexStats stats() const;
  void reset_stats();

  // Keeps copies of up to `count` of the next queries asked (for measuring
  // recall on real queries); take them with take_recorded().
  void record_queries(std::size_t count);
  std::vector<FactQuery> take_recorded();

 protected:
  explicit FactIndex(const Model& model);
  // The `want` nearest fact ids of each query, nearest first, ties by fact
  // id; masked facts may be among them. want = k + the most facts any query
  // of the batch masks (spares for them), at most the facts of the arity.
  virtual std::vector<std::vector<int>> search(const std::vector<FactQuery>& queries, int want) = 0;
  virtual void apply_moved(const MovedRows& rows) = 0;
  // Fact ids of that arity, ascending (empty for an arity no fact has).
  const std::vector<int>& facts_of_arity(int arity) const;
  void count_relinked(long long rows) { rows_relinked_ += rows; }
  void count_widened() { ++widened_; }

  const Model& model_;

 private:
  std::vector<std::vector<int>> by_arity_;  // fact ids of each arity
  std::atomic<long long> queries_{0}, search_ns_{0}, maintenance_ns_{0}, rows_relinked_{0}, widened_{0};
  std::mutex record_mutex_;
  std::atomic<std::size_t> record_left_{0};  // read without the lock by every search
  std::vector<FactQuery> recorded_;
};

}  // namespace ntp
