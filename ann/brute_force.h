// ann/brute_force.h: exact k nearest neighbours by comparing every query with
// every point. Distances come from one matrix product per tile,
// ||q||^2 + ||x||^2 - 2 q.x (Eigen, float), a running top-k per query keeps
// the best candidates, and the survivors are re-scored with the direct
// difference loop so that the returned distances do not suffer the
// cancellation of the expanded form. Queries are cut into blocks that run in
// parallel (OpenMP); points are cut into tiles that fit the cache.
#pragma once

#include "ann/index.h"

namespace ann {

class BruteForce : public Index {
 public:
  void build(const RowMatrix& points) override;
  Neighbours search(const RowMatrix& queries, int k) const override;
  // Overwrites the rows and their norms in place.
  void update(const std::vector<int>& ids, const RowMatrix& points) override;
  int size() const override { return static_cast<int>(points_.rows()); }
  int dim() const override { return static_cast<int>(points_.cols()); }
  std::string name() const override { return "brute"; }
  const RowMatrix& points() const override { return points_; }
  size_t memory_bytes() const override;

 private:
  RowMatrix points_;        // (n, d)
  Eigen::VectorXf norms_;   // (n) squared norms of the rows of points_
};

}  // namespace ann
