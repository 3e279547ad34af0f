// ntp/fact_index.cpp: what every fact index shares (masking, exhaustive
// queries, timing, query samples), the factory, and recall measurement.
#include "ntp/fact_index.h"

#include "ntp/constant_index.h"
#include "ntp/table_index.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

namespace ntp {

namespace {

using Clock = std::chrono::steady_clock;

long long nanoseconds_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
}

}  // namespace

std::vector<int> pattern_key(const FactQuery& q) {
  std::vector<int> key{static_cast<int>(q.args.size())};
  for (std::size_t i = 0; i < q.args.size(); ++i)
    if (q.args[i] >= 0) key.push_back(static_cast<int>(i));
  return key;
}

bool is_fact_index_kind(const std::string& kind) {
  return kind == "auto" || kind == "table" || kind == "brute" || kind == "kdtree" || kind == "hnsw";
}

const char* fact_index_kinds() { return "auto, table, brute, kdtree, hnsw"; }

std::unique_ptr<FactIndex> make_fact_index(const Model& model, const std::string& kind,
                                           const FactIndexOptions& options) {
  if (!is_fact_index_kind(kind))
    throw std::invalid_argument("unknown fact index '" + kind + "' (expected " + fact_index_kinds() + ")");
  if (kind == "table" || (kind == "auto" && TableIndex::fits(model))) return std::make_unique<TableIndex>(model, options.update_every);
  if (kind == "brute") return std::make_unique<ConstantIndex>(model, ConstantIndex::Lookup::Scan, options);
  if (kind == "kdtree") return std::make_unique<ConstantIndex>(model, ConstantIndex::Lookup::KdTree, options);
  return std::make_unique<ConstantIndex>(model, ConstantIndex::Lookup::Hnsw, options);
}

FactIndex::FactIndex(const Model& model) : model_(model) {
  for (std::size_t f = 0; f < model.kb.facts.size(); ++f) {
    const std::size_t arity = model.kb.facts[f].args.size();
    if (by_arity_.size() <= arity) by_arity_.resize(arity + 1);
    by_arity_[arity].push_back(static_cast<int>(f));
  }
}

const std::vector<int>& FactIndex::facts_of_arity(int arity) const {
  static const std::vector<int> none;
  return static_cast<std::size_t>(arity) < by_arity_.size() ? by_arity_[static_cast<std::size_t>(arity)] : none;
}

std::vector<std::vector<int>> FactIndex::nearest(const std::vector<FactQuery>& queries, int k) {
  std::vector<std::vector<int>> out(queries.size());
  if (queries.empty()) return out;
  const auto start = Clock::now();
  if (record_left_ > 0) {  // a cheap atomic peek; the count is re-checked under the lock
    std::lock_guard<std::mutex> lock(record_mutex_);
    for (std::size_t q = 0; q < queries.size() && record_left_ > 0; ++q, --record_left_) recorded_.push_back(queries[q]);
  }
  const std::vector<int>& all = facts_of_arity(static_cast<int>(queries.front().args.size()));
  if (k <= 0 || static_cast<std::size_t>(k) >= all.size()) {  // exhaustive, or k covers every fact
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (int f : all)
        if (!queries[q].masked.contains(f)) out[q].push_back(f);
  } else {
    // Spares for the masked facts, which may be among the nearest.
    int spares = 0;
    for (const FactQuery& q : queries) spares = std::max(spares, q.masked.size());
    const std::vector<std::vector<int>> found = search(queries, std::min(k + spares, static_cast<int>(all.size())));
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (int f : found[q])
        if (!queries[q].masked.contains(f) && static_cast<int>(out[q].size()) < k) out[q].push_back(f);
  }
  queries_ += static_cast<long long>(queries.size());
  search_ns_ += nanoseconds_since(start);
  return out;
}

void FactIndex::embeddings_moved(const MovedRows& rows) {
  const auto start = Clock::now();
  apply_moved(rows);
  maintenance_ns_ += nanoseconds_since(start);
}

FactIndexStats FactIndex::stats() const {
  FactIndexStats s;
  s.queries = queries_;
  s.search_seconds = 1e-9 * static_cast<double>(search_ns_);
  s.maintenance_seconds = 1e-9 * static_cast<double>(maintenance_ns_);
  s.rows_relinked = rows_relinked_;
  s.widened = widened_;
  return s;
}

void FactIndex::reset_stats() { queries_ = search_ns_ = maintenance_ns_ = rows_relinked_ = widened_ = 0; }

void FactIndex::record_queries(std::size_t count) {
  std::lock_guard<std::mutex> lock(record_mutex_);
  record_left_ = count;
  recorded_.clear();
}

std::vector<FactQuery> FactIndex::take_recorded() {
  std::lock_guard<std::mutex> lock(record_mutex_);
  record_left_ = 0;
  return std::move(recorded_);
}

double key_distance(const Model& model, const FactQuery& q, int fact) {
  const Atom& f = model.kb.facts[static_cast<std::size_t>(fact)];
  double d = (model.predicates.value.row(q.predicate_row) - model.predicates.value.row(f.predicate)).squaredNorm();
  for (std::size_t i = 0; i < q.args.size(); ++i)
    if (q.args[i] >= 0) d += (model.constants.value.row(q.args[i]) - model.constants.value.row(f.args[i])).squaredNorm();
  return d;
}

double recall_at_k(FactIndex& index, FactIndex& exact, const std::vector<FactQuery>& queries, int k) {
  if (k <= 0) throw std::invalid_argument("recall_at_k: k must be > 0");
  std::map<std::vector<int>, std::vector<FactQuery>> by_pattern;  // nearest() takes one pattern at a time
  for (const FactQuery& q : queries) by_pattern[pattern_key(q)].push_back(q);
  long long right = 0, wanted = 0;
  for (const auto& [pattern, batch] : by_pattern) {
    const auto got = index.nearest(batch, k);
    const auto truth = exact.nearest(batch, k);
    for (std::size_t q = 0; q < batch.size(); ++q) {
      if (truth[q].empty()) continue;
      // A float index may order near-equal keys differently from the double
      // distance; a relative slack of 1e-5 absorbs that rounding.
      const double kth = key_distance(exact.model(), batch[q], truth[q].back());
      wanted += static_cast<long long>(truth[q].size());
      for (int f : got[q])
        if (key_distance(exact.model(), batch[q], f) <= kth * (1 + 1e-5) + 1e-9) ++right;
    }
  }
  return wanted == 0 ? 1.0 : static_cast<double>(right) / static_cast<double>(wanted);
}

std::vector<int> nearest_rules(const Model& model, int row, int arity, int k) {
  std::vector<std::pair<float, int>> scored;
  const auto goal = model.predicates.value.row(row);
  for (std::size_t r = 0; r < model.rules.size(); ++r) {
    const RuleAtom& head = model.rules[r].head;
    if (static_cast<int>(head.args.size()) != arity) continue;
    const float dist = k > 0 ? static_cast<float>((model.predicates.value.row(head.predicate.id) - goal).squaredNorm()) : 0.0f;
    scored.emplace_back(dist, static_cast<int>(r));
  }
  std::vector<int> ids;
  if (k > 0) {
    const std::size_t keep = std::min(static_cast<std::size_t>(k), scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep), scored.end());
    scored.resize(keep);
  }
  for (const auto& s : scored) ids.push_back(s.second);
  return ids;
}

}  // namespace ntp
