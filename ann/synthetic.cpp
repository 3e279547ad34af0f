// ann/synthetic.cpp: seeded point sets and recall (see synthetic.h).
#include "ann/synthetic.h"

#include <algorithm>
#include <random>

namespace ann {

RowMatrix synthetic_mixture(int n, int d, int clusters, uint64_t seed, float spread) {
  if (n < 0 || d < 1 || clusters < 1)
    throw std::invalid_argument("synthetic_mixture: need n >= 0, d >= 1, clusters >= 1; got n = " +
                                std::to_string(n) + ", d = " + std::to_string(d) +
                                ", clusters = " + std::to_string(clusters));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  RowMatrix centres(clusters, d);
  for (int c = 0; c < clusters; ++c)
    for (int j = 0; j < d; ++j) centres(c, j) = normal(rng);
  std::uniform_int_distribution<int> pick(0, clusters - 1);
  RowMatrix points(n, d);
  for (int i = 0; i < n; ++i) {
    const int c = pick(rng);
    for (int j = 0; j < d; ++j) points(i, j) = centres(c, j) + spread * normal(rng);
  }
  return points;
}

namespace {

// n x d points, every coordinate drawn independently from `distribution`.
template <class Distribution>
RowMatrix independent_points(int n, int d, uint64_t seed, Distribution distribution) {
  std::mt19937_64 rng(seed);
  RowMatrix points(n, d);
  for (Eigen::Index i = 0; i < points.size(); ++i) points.data()[i] = distribution(rng);
  return points;
}

}  // namespace

RowMatrix synthetic_gaussian(int n, int d, uint64_t seed) {
  return independent_points(n, d, seed, std::normal_distribution<float>(0.0f, 1.0f));
}

RowMatrix synthetic_uniform(int n, int d, uint64_t seed) {
  return independent_points(n, d, seed, std::uniform_real_distribution<float>(0.0f, 1.0f));
}

double recall_at_k(const Neighbours& found, const Neighbours& exact, int k) {
  if (k < 1 || found.k < k || exact.k < k || found.ids.size() / found.k != exact.ids.size() / exact.k)
    throw std::invalid_argument("recall_at_k: need k >= 1 and both results with >= k ids for the "
                                "same number of queries; got k = " + std::to_string(k) +
                                ", found.k = " + std::to_string(found.k) +
                                ", exact.k = " + std::to_string(exact.k));
  const size_t queries = exact.ids.size() / exact.k;
  if (queries == 0) return 1.0;
  size_t hits = 0;
  std::vector<int> truth(static_cast<size_t>(k));
  for (size_t q = 0; q < queries; ++q) {
    std::copy_n(exact.ids.begin() + q * exact.k, k, truth.begin());
    std::sort(truth.begin(), truth.end());
    for (int j = 0; j < k; ++j)
      hits += std::binary_search(truth.begin(), truth.end(), found.ids[q * found.k + j]);
  }
  return static_cast<double>(hits) / static_cast<double>(queries * k);
}

}  // namespace ann
