// ann/brute_force.cpp: tiled, batched exact search (see brute_force.h).
//
// GCC 12 reports a false -W(maybe-)uninitialized inside Eigen's AVX-512 GEMM
// packing (the _mm512_undefined_ps in avx512fintrin.h); silence it here only
// (clang has no -Wmaybe-uninitialized and would warn about the pragma).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "ann/brute_force.h"

#include "ann/distance.h"
#include "ann/top_k.h"

#include <omp.h>

#include <algorithm>

namespace ann {
namespace {

constexpr int kQueryBlock = 64;   // queries per block of work
constexpr int kPointTile = 1024;  // points per matrix-product tile
// Candidates kept beyond k from the expanded-form distances, to be re-scored
// exactly: rounding in ||q||^2 + ||x||^2 - 2 q.x can swap near-ties.
constexpr int kRescoreExtra = 8;

}  // namespace

void BruteForce::build(const RowMatrix& points) {
  check_build_input(points, "BruteForce::build");
  points_ = points;
  norms_ = points_.rowwise().squaredNorm();
}

void BruteForce::update(const std::vector<int>& ids, const RowMatrix& points) {
  check_update_input(*this, ids, points, "BruteForce::update");
  for (size_t i = 0; i < ids.size(); ++i) {
    points_.row(ids[i]) = points.row(static_cast<Eigen::Index>(i));
    norms_[ids[i]] = points_.row(ids[i]).squaredNorm();
  }
}

size_t BruteForce::memory_bytes() const {
  return sizeof(float) * static_cast<size_t>(points_.size() + norms_.size());
}

Neighbours BruteForce::search(const RowMatrix& queries, int k) const {
  check_search_input(*this, queries, k, "BruteForce::search");
  const int n = size();
  const int d = dim();
  const int m = static_cast<int>(queries.rows());
  Neighbours out;
  out.k = std::min(k, n);
  out.ids.resize(static_cast<size_t>(m) * out.k);
  out.distances.resize(static_cast<size_t>(m) * out.k);
  const int keep = std::min(n, out.k + kRescoreExtra);
  const Eigen::VectorXf query_norms = queries.rowwise().squaredNorm();

  // Few queries: smaller blocks so that every thread gets one.
  const int threads = omp_get_max_threads();
  const int block = std::max(1, std::min(kQueryBlock, (m + threads - 1) / threads));
  const int blocks = (m + block - 1) / block;

#pragma omp parallel
  {
    RowMatrix products(block, std::min(kPointTile, n));  // (block, tile) q.x
    std::vector<float> row(static_cast<size_t>(std::min(kPointTile, n)));
    std::vector<TopK> best(static_cast<size_t>(block));
    std::vector<Scored> exact;
#pragma omp for schedule(dynamic, 1)
    for (int b = 0; b < blocks; ++b) {
      const int q0 = b * block;
      const int qb = std::min(block, m - q0);
      for (int i = 0; i < qb; ++i) best[i].reset(keep);
      for (int p0 = 0; p0 < n; p0 += kPointTile) {
        const int pt = std::min(kPointTile, n - p0);
        auto tile = products.topLeftCorner(qb, pt);
        tile.noalias() = queries.middleRows(q0, qb) * points_.middleRows(p0, pt).transpose();
        for (int i = 0; i < qb; ++i) {
          const float qn = query_norms[q0 + i];
          const float* dot = tile.row(i).data();
          const float* xn = norms_.data() + p0;
          for (int j = 0; j < pt; ++j) row[j] = qn + xn[j] - 2.0f * dot[j];
          TopK& top = best[i];
          float bound = top.bound();
          for (int j = 0; j < pt; ++j) {
            if (row[j] <= bound) {
              top.push(row[j], p0 + j);
              bound = top.bound();
            }
          }
        }
      }
      for (int i = 0; i < qb; ++i) {
        const float* q = queries.row(q0 + i).data();
        exact.clear();
        for (const Scored& s : best[i].sorted())
          exact.push_back({l2_squared(q, points_.row(s.id).data(), d), s.id});
        std::sort(exact.begin(), exact.end());
        const size_t base = static_cast<size_t>(q0 + i) * out.k;
        for (int j = 0; j < out.k; ++j) {
          out.ids[base + j] = exact[j].id;
          out.distances[base + j] = exact[j].distance;
        }
      }
    }
  }
  return out;
}

}  // namespace ann
