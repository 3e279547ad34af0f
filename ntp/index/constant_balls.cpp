// ntp/index/constant_balls.cpp: exact balls over the constants (see constant_balls.h).
#include "ntp/index/constant_balls.h"

#include "ann/brute_force.h"
#include "ann/distance.h"

#include <algorithm>

namespace ntp {

ConstantBalls::ConstantBalls(const Model& model, int neighbours)
    : points_(model.constants.value.cast<float>()) {
  if (points_.rows() == 0) return;
  ann::BruteForce all;
  all.build(points_);
  const ann::Neighbours found = all.search(points_, std::max(1, neighbours));
  neighbours_ = found.k;
  ids_ = found.ids;
  squared_ = found.distances;
}

float ConstantBalls::squared(int a, int b) const {
  return ann::l2_squared(points_.row(a).data(), points_.row(b).data(), static_cast<int>(points_.cols()));
}

int ConstantBalls::within(int c, double squared_radius, std::vector<int>& out) const {
  const float widened = static_cast<float>(squared_radius * (1 + 1e-4) + 1e-6);
  const std::size_t first = static_cast<std::size_t>(c) * static_cast<std::size_t>(neighbours_);
  const float* listed = squared_.data() + first;
  // The list holds every constant nearer than its last entry: a ball that
  // ends before the last entry is a prefix.
  if (neighbours_ == size() || listed[neighbours_ - 1] > widened) {
    int j = 0;
    for (; j < neighbours_ && listed[j] <= widened; ++j) out.push_back(ids_[first + static_cast<std::size_t>(j)]);
    return j + 1;
  }
  scans_.fetch_add(1, std::memory_order_relaxed);
  for (int other = 0; other < size(); ++other)
    if (squared(c, other) <= widened) out.push_back(other);
  return size();
}

}  // namespace ntp
