// ntp/index/recall.h: how close an approximate fact index comes to exact search.
#pragma once

#include "ntp/index/fact_index.h"

#include <vector>

namespace ntp {

// Squared distance between the keys of query q and fact f (from the model's
// double embeddings): d(θ_p, θ_p') + Σ over q's ground positions d(θ_c, θ_c').
double key_distance(const Model& model, const FactQuery& q, int fact);

// recall@k of `index` against `exact` on `queries`: the share of the exact
// top-k that the index also returns; an index fact counts as right when its
// key is no farther than the exact k-th (so equal-distance swaps are right).
double recall_at_k(FactIndex& index, FactIndex& exact, const std::vector<FactQuery>& queries, int k);

}  // namespace ntp
