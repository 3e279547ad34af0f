// ann/spin_lock.h: a one-byte lock for the per-node link lists of a graph
// being built by several threads. Critical sections are a few hundred
// nanoseconds, so spinning beats parking the thread; do not hold it long.
#pragma once

#include <atomic>

namespace ann {

class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) __builtin_ia32_pause();
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

}  // namespace ann
