// ann/kd_tree.cpp: KdTree on nanoflann's KDTreeEigenMatrixAdaptor (row-major
// rows are the points, squared L2 metric).
#include "ann/kd_tree.h"

#include "ann/top_k.h"

#include <nanoflann.hpp>

#include <algorithm>

namespace ann {

struct KdTree::Tree {
  using Adaptor = nanoflann::KDTreeEigenMatrixAdaptor<RowMatrix, -1, nanoflann::metric_L2, true>;
  Tree(const RowMatrix& points, int leaf_size)
      : adaptor(static_cast<Adaptor::Dimension>(points.cols()), std::cref(points), leaf_size) {}
  Adaptor adaptor;
};

KdTree::KdTree(int leaf_size) : leaf_size_(leaf_size) {
  if (leaf_size < 1)
    throw std::invalid_argument("KdTree: leaf_size must be >= 1, got " + std::to_string(leaf_size));
}

KdTree::~KdTree() = default;

void KdTree::build(const RowMatrix& points) {
  check_build_input(points, "KdTree::build");
  tree_.reset();
  points_ = points;
  tree_ = std::make_unique<Tree>(points_, leaf_size_);
}

size_t KdTree::memory_bytes() const {
  if (!tree_) return 0;
  // Points, plus nanoflann's count: its node pool and permutation of indices.
  auto& index = *tree_->adaptor.index;
  return sizeof(float) * static_cast<size_t>(points_.size()) + index.usedMemory(index);
}

Neighbours KdTree::search(const RowMatrix& queries, int k) const {
  check_search_input(*this, queries, k, "KdTree::search");
  const int m = static_cast<int>(queries.rows());
  Neighbours out;
  out.k = std::min(k, size());
  out.ids.resize(static_cast<size_t>(m) * out.k);
  out.distances.resize(static_cast<size_t>(m) * out.k);
#pragma omp parallel
  {
    std::vector<Eigen::Index> ids(static_cast<size_t>(out.k));
    std::vector<float> distances(static_cast<size_t>(out.k));
    std::vector<Scored> found(static_cast<size_t>(out.k));
#pragma omp for schedule(dynamic, 16)
    for (int q = 0; q < m; ++q) {
      nanoflann::KNNResultSet<float, Eigen::Index> result(static_cast<size_t>(out.k));
      result.init(ids.data(), distances.data());
      tree_->adaptor.index->findNeighbors(result, queries.row(q).data(), nanoflann::SearchParams());
      // nanoflann leaves equal distances in visiting order; sort them by id.
      for (int j = 0; j < out.k; ++j) found[j] = {distances[j], static_cast<int>(ids[j])};
      std::sort(found.begin(), found.end());
      const size_t base = static_cast<size_t>(q) * out.k;
      for (int j = 0; j < out.k; ++j) {
        out.ids[base + j] = found[j].id;
        out.distances[base + j] = found[j].distance;
      }
    }
  }
  return out;
}

}  // namespace ann
