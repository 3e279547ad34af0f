// ann/visited_set.h: which nodes a graph search has already seen, reset in
// O(1) per search. Each slot holds the epoch in which it was last marked; a
// new search bumps the epoch, and only when the 16-bit counter wraps are the
// slots cleared (once every 65,535 searches).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ann {

class VisitedSet {
 public:
  explicit VisitedSet(int n = 0) : marks_(static_cast<size_t>(n), 0) {}
  int capacity() const { return static_cast<int>(marks_.size()); }
  // Forgets every mark; call before each search.
  void clear() {
    if (++epoch_ == 0) {
      std::fill(marks_.begin(), marks_.end(), 0);
      epoch_ = 1;
    }
  }
  // Marks `id`; true if it was not marked since the last clear().
  bool insert(int id) {
    uint16_t& m = marks_[static_cast<size_t>(id)];
    if (m == epoch_) return false;
    m = epoch_;
    return true;
  }
  bool contains(int id) const { return marks_[static_cast<size_t>(id)] == epoch_; }
  const void* slot(int id) const { return &marks_[static_cast<size_t>(id)]; }
  size_t memory_bytes() const { return marks_.size() * sizeof(uint16_t); }

 private:
  std::vector<uint16_t> marks_;
  uint16_t epoch_ = 0;
};

}  // namespace ann
