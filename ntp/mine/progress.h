// ntp/mine/progress.h: the progress and stop checks that the mining passes
// share (miner.cpp, constant_rules.cpp); internal to ntp/mine.
#pragma once

#include "ntp/mine/miner.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>
#include <utility>

namespace ntp {

// Reports (phase, done, total) from one thread at a time, at most every `every` units.
class MineProgress {
 public:
  MineProgress(const MineOptions& o, std::string phase, std::size_t total, std::size_t every)
      : o_(o), phase_(std::move(phase)), total_(total), every_(std::max<std::size_t>(every, 1)) {}
  void add(std::size_t units) {
    if (!o_.progress) return;
    const std::size_t before = done_.fetch_add(units);
    if ((before + units) / every_ != before / every_ || before + units == total_) {
#pragma omp critical(ntp_mine_progress)
      o_.progress(phase_, std::min(done_.load(), total_), total_);
    }
  }
  bool stopped() const { return o_.stop != nullptr && o_.stop->load(); }

 private:
  const MineOptions& o_;
  std::string phase_;
  std::size_t total_, every_;
  std::atomic<std::size_t> done_{0};
};

}  // namespace ntp
