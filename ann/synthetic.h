// ann/synthetic.h: seeded random point sets for the tests and the benchmark
// (Gaussian mixtures, i.i.d. Gaussian, uniform), and recall@k of a search
// result against exact neighbours. No file formats: real data comes from the
// prover.
#pragma once

#include "ann/index.h"

#include <cstdint>

namespace ann {

// n points around `clusters` centres drawn from N(0, I); each point is its
// centre plus N(0, spread^2 I). Learned embeddings look more like this than
// like i.i.d. noise.
RowMatrix synthetic_mixture(int n, int d, int clusters, uint64_t seed, float spread = 0.3f);
// n points from N(0, I).
RowMatrix synthetic_gaussian(int n, int d, uint64_t seed);
// n points uniform in [0, 1)^d.
RowMatrix synthetic_uniform(int n, int d, uint64_t seed);

// Mean over queries of |found ∩ exact| / k, comparing the first k ids per
// query of each result (both must hold at least k per query).
double recall_at_k(const Neighbours& found, const Neighbours& exact, int k);

}  // namespace ann
