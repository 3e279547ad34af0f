// ntp/index/table_index.h: the exact fact index for small vocabularies.
//
// Squared distances between every pair of constants, and between each
// predicate row a search asks and every KB predicate, are tabulated from the
// current embeddings (a predicate row when first asked: with conditional
// rules the table has thousands of rows and a training step asks a few); a key
// distance is then a sum of table lookups, not a d-dimensional loop. A search
// visits KB predicates nearest first and, within one, the facts whose first
// compared constant is nearest to the goal's first; it stops as soon as these
// partial sums exceed the k-th best total (all terms are >= 0), which with
// k = 1 usually happens after a handful of facts.
//
// Freshness: any moved row makes the tables stale; they are rebuilt on the
// next search, every `update_every` steps (default: every step, which costs
// O(C² d) and is cheap while C is small; fits() says when it is).
#pragma once

#include "ntp/index/fact_index.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace ntp {

class TableIndex : public FactIndex {
 public:
  explicit TableIndex(const Model& model, int update_every = 0);
  ~TableIndex() override;
  // True when the (C, C) constant table fits in memory (C <= 8,192).
  static bool fits(const Model& model);

  void all_moved() override;
  bool exact() const override { return true; }
  std::string name() const override { return "table"; }

 protected:
  std::vector<std::vector<int>> search(const std::vector<FactQuery>& queries, int want) override;
  void apply_moved(const MovedRows& rows) override;

 private:
  struct Pattern;  // the facts of one ground-position pattern, grouped for the scan
  Pattern& pattern_for(const FactQuery& q);
  void build_tables();
  // Fills predicates_by_distance_ for the queries' rows that lack it.
  void rank_predicate_rows(const std::vector<FactQuery>& queries);

  int update_every_;
  int steps_since_update_ = 0;
  // search() may be called from several threads; building a pattern or the
  // tables (lazily) happens under this lock, searching them outside it.
  std::mutex build_mutex_;
  std::map<std::vector<int>, std::unique_ptr<Pattern>> patterns_;  // key: arity, ground positions
  // Squared distances (C, C), and for each constant every constant by
  // increasing distance from it (C lists of C), so that a search can walk
  // outwards from a goal's constant and stop early. The lists are only built
  // while C <= kMaxSortedConstants.
  Eigen::MatrixXf constant_sq_;
  std::vector<std::vector<int>> constants_by_distance_;
  // For each predicate row, the KB predicates as (squared distance, id),
  // nearest first; empty until a search asks the row (since the tables
  // were last built).
  std::vector<std::vector<std::pair<float, int>>> predicates_by_distance_;
  bool tables_ready_ = false;
};

}  // namespace ntp
