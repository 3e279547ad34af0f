// ntp/train/step_timer.h: where a step's time goes. The step calls lap() after
// each phase with the TimeSplit field that phase fills; the time since the
// previous lap is added to it. Also the seconds since a moment, which
// training's progress lines and choices read.
#pragma once

#include "ntp/train/options.h"

#include <chrono>

namespace ntp {

// Seconds of wall time since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class StepTimer {
 public:
  explicit StepTimer(TimeSplit& time) : time_(time) {}
  TimeSplit& time() { return time_; }
  // Starts timing the step's first phase.
  void start() { last_ = Clock::now(); }
  // Adds the seconds since the last lap (or start) to `phase` of the split.
  void lap(double TimeSplit::*phase) {
    const auto now = Clock::now();
    time_.*phase += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  TimeSplit& time_;
  Clock::time_point last_ = Clock::now();
};

}  // namespace ntp
