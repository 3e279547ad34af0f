// ann/top_k.h: a bounded list of the k best (distance, id) pairs seen so far,
// kept as a max-heap on distance so the worst survivor is at the front. Ties
// on distance are broken by id, so results do not depend on visiting order.
// Used by the exact indices; the graph search keeps its own heaps.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

namespace ann {

struct Scored {
  float distance;
  int id;
};

inline bool operator<(const Scored& a, const Scored& b) {
  return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
}

class TopK {
 public:
  // Empties the list and sets its capacity to k (k >= 1).
  void reset(int k) {
    k_ = k;
    heap_.clear();
    heap_.reserve(static_cast<size_t>(k));
  }
  // Distance a candidate must beat (strictly or on the id) to enter.
  float bound() const {
    return static_cast<int>(heap_.size()) < k_ ? std::numeric_limits<float>::infinity()
                                               : heap_.front().distance;
  }
  // True when the candidate entered the list.
  bool push(float distance, int id) {
    const Scored s{distance, id};
    if (static_cast<int>(heap_.size()) < k_) {
      heap_.push_back(s);
      std::push_heap(heap_.begin(), heap_.end());
      return true;
    }
    if (!(s < heap_.front())) return false;
    std::pop_heap(heap_.begin(), heap_.end());
    heap_.back() = s;
    std::push_heap(heap_.begin(), heap_.end());
    return true;
  }
  // The survivors into `out`, nearest first, leaving the list as it was
  // (more may be pushed).
  void copy_sorted(std::vector<Scored>& out) const {
    out.assign(heap_.begin(), heap_.end());
    std::sort(out.begin(), out.end());
  }
  // The survivors, nearest first; valid until the next reset() or push().
  std::vector<Scored>& sorted() {
    std::sort_heap(heap_.begin(), heap_.end());
    return heap_;
  }

 private:
  int k_ = 0;
  std::vector<Scored> heap_;
};

}  // namespace ann
