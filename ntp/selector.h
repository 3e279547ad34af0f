// ntp/selector.h: which facts an `or` step expands (the "2.0" of NTP 2.0).
//
// A goal such as locatedIn(palau, Z) is compared with facts only at its ground
// positions, so its search key is the concatenation of the embeddings there:
// [θ_locatedIn ; θ_palau]. A fact's key is built from the same positions. The
// k facts with the nearest keys (squared L2) are the ones whose proof paths get
// built; NTP 2.0 shows that with k = 1 little is lost, because the best proof's
// score max_f min_i k(θ_gi, θ_fi) tends to come from the nearest fact.
//
// There is one search structure per (arity, ground-position pattern), built
// lazily from the current embeddings and rebuilt by refresh() after training
// moved them. Two families answer the same question:
//   table   exact, for small vocabularies: squared distances between every
//           predicate row and KB predicate, and between every pair of
//           constants, are tabulated once per refresh; a key distance is then
//           a sum of table lookups, not a d-dimensional loop;
//   brute | kdtree | hnsw   an ann::Index over the concatenated float keys.
// The table search visits KB predicates nearest first and, within one, the
// facts whose first compared constant is nearest to the goal's first; it stops
// as soon as these partial sums exceed the k-th best total (all terms are >= 0),
// which with k = 1 usually happens after a handful of facts.
// "auto" picks table when the constant table fits in memory, else lets
// ann::make_index("auto") choose an index per pattern from its size and width.
#pragma once

#include "ann/index.h"
#include "ntp/model.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace ntp {

// The question asked of the selector: predicate row, and for each argument a
// constant id or -1 (a variable, not compared).
struct FactQuery {
  int predicate_row = -1;
  std::vector<int> args;
  int masked_fact = -1;  // a fact id never to return (the fact being proven)
};

// True for the kinds FactSelector accepts: auto, table, brute, kdtree, hnsw.
bool is_selector_kind(const std::string& kind);

class FactSelector {
 public:
  FactSelector(const Model& model, std::string kind);
  ~FactSelector();
  FactSelector(const FactSelector&) = delete;
  FactSelector& operator=(const FactSelector&) = delete;
  // Embeddings moved: drop every search structure (rebuilt lazily on use).
  void refresh();
  // For each query, up to k fact ids (nearest first); k = 0 returns every fact
  // of the query's arity (exhaustive NTP). Queries must share one pattern.
  // Safe to call from several threads at once (not concurrently with refresh).
  std::vector<std::vector<int>> nearest(const std::vector<FactQuery>& queries, int k);
  const std::string& kind() const { return kind_; }

 private:
  struct Pattern;  // one search structure, for one ground-position pattern
  Pattern& pattern_for(const FactQuery& q);
  void build_tables();

  const Model& model_;
  std::string kind_;
  // nearest() may be called from several threads; building a pattern's
  // structures (lazily) happens under this lock, searching them outside it.
  std::mutex build_mutex_;
  std::map<std::vector<int>, std::unique_ptr<Pattern>> patterns_;  // key: arity, ground positions
  // table kind: squared distances, (predicate rows, P) and (C, C), and for
  // each constant every constant by increasing distance from it (C lists of
  // C), so that a search can walk outwards from a goal's constant and stop
  // early. The lists are only built while C <= kMaxSortedConstants.
  Eigen::MatrixXf predicate_sq_;
  Eigen::MatrixXf constant_sq_;
  std::vector<std::vector<int>> constants_by_distance_;
  // For each predicate row, the KB predicates as (squared distance, id), nearest first.
  std::vector<std::vector<std::pair<float, int>>> predicates_by_distance_;
  bool tables_ready_ = false;
};

// The rules whose heads are nearest to predicate row `row` (k = 0: all rules,
// in order). Rules whose head arity differs are never returned.
std::vector<int> nearest_rules(const Model& model, int row, int arity, int k);

}  // namespace ntp
