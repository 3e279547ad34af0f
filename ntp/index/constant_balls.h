// ntp/index/constant_balls.h: every constant within a given distance of a
// constant, exactly.
//
// Ranking asks, for many constants e and one radius at a time, "which
// constants c lie within distance r of e?" (prover/slot_bound.h: a candidate
// can only score above a threshold if its kernel with some fact constant e
// does). Each constant's `neighbours` nearest constants are found once, with
// the exact brute-force search of ann/, and kept sorted by distance:
//   a ball inside that list is a prefix of it;
//   a wider ball is a scan of every constant.
// Distances are float (the embeddings' float copy), so a ball is widened by
// a relative 1e-4: it may hold a few constants just outside the radius, never
// miss one inside. Callers recompute the exact kernel of what they keep.
#pragma once

#include "ann/index.h"
#include "ntp/model/model.h"

#include <atomic>
#include <vector>

namespace ntp {

class ConstantBalls {
 public:
  // The embeddings are read now: rebuild after they move.
  explicit ConstantBalls(const Model& model, int neighbours = 64);
  // Appends to `out` the constants whose squared distance to constant c is at
  // most `squared_radius` (c among them), plus possibly a few within rounding.
  // Returns how many constants it looked at (the work done).
  int within(int c, double squared_radius, std::vector<int>& out) const;
  int size() const { return static_cast<int>(points_.rows()); }
  // The squared distance of two constants, from the float copy: within a
  // relative 1e-4 of the exact one.
  float squared(int a, int b) const;
  // Each constant's listed nearest constants: listed() of them, nearest first.
  int listed() const { return neighbours_; }
  const int* listed_ids(int c) const { return ids_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(neighbours_); }
  // Their squared distances to c (float, as squared()).
  const float* listed_squared(int c) const {
    return squared_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(neighbours_);
  }
  // How many within() calls needed a scan of every constant (a ball wider than the list).
  long long scans() const { return scans_.load(std::memory_order_relaxed); }

 private:
  int neighbours_ = 0;          // list length per constant (at most size())
  ann::RowMatrix points_;       // (C, d) float copy of the constant table
  std::vector<int> ids_;        // (C * neighbours): each constant's nearest, nearest first
  std::vector<float> squared_;  // (C * neighbours): their squared distances
  mutable std::atomic<long long> scans_{0};  // counted from any thread
};

}  // namespace ntp
