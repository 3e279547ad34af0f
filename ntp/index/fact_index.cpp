// ntp/index/fact_index.cpp: what every fact index shares (masking, exhaustive
// queries, timing, query samples).
#include "ntp/index/fact_index.h"


#include <algorithm>
#include <chrono>
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

}  // namespace ntp
