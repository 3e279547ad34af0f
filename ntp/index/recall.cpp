// ntp/index/recall.cpp: key distances and recall@k against an exact index.
#include "ntp/index/recall.h"

#include <map>
#include <stdexcept>

namespace ntp {

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

}  // namespace ntp
