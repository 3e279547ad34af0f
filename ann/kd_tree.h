// ann/kd_tree.h: exact k nearest neighbours through nanoflann's k-d tree over
// an Eigen matrix. Fast in a few dimensions, no better than brute force above
// about ten (every leaf ends up visited). Updates rebuild the tree.
#pragma once

#include "ann/index.h"

namespace ann {

class KdTree : public Index {
 public:
  explicit KdTree(int leaf_size = 10);
  ~KdTree() override;
  KdTree(const KdTree&) = delete;
  KdTree& operator=(const KdTree&) = delete;

  void build(const RowMatrix& points) override;
  Neighbours search(const RowMatrix& queries, int k) const override;
  int size() const override { return static_cast<int>(points_.rows()); }
  int dim() const override { return static_cast<int>(points_.cols()); }
  std::string name() const override { return "kdtree"; }
  const RowMatrix& points() const override { return points_; }
  size_t memory_bytes() const override;

 private:
  struct Tree;  // the nanoflann adaptor, kept out of this header
  int leaf_size_;
  RowMatrix points_;  // (n, d); the tree refers to it, so it never moves while tree_ lives
  std::unique_ptr<Tree> tree_;
};

}  // namespace ann
