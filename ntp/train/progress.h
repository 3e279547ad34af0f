// ntp/train/progress.h: the progress lines of training, on a stream the
// caller chooses (none when it is null). During an epoch: the step, the rate,
// the mean loss so far and the ETA, either rewritten in place every 10 steps
// (TrainOptions::progress_inline: a terminal) or as a new line every
// progress_seconds (a log file). After each epoch: its loss, time, elapsed
// time and ETA, the recall probes' mean, the caller's note (a dev metric)
// and, when profiling, where the time went.
#pragma once

#include "ntp/train/options.h"

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace ntp {

class ProgressPrinter {
 public:
  // `first_epoch` is where this run starts (later than 1 when resumed): the
  // ETA extrapolates from the epochs this run has taken.
  ProgressPrinter(std::ostream* out, const TrainOptions& options, int first_epoch, std::size_t steps_per_epoch);
  void start_epoch();
  // After steps `first`..`last` (0-based, one update) of `epoch`, with the
  // loss summed over the epoch's steps so far.
  void after_steps(int epoch, std::size_t first, std::size_t last, double loss_sum);
  // `index` names the fact index, for the recall probes.
  void after_epoch(const EpochReport& report, const std::string& index);
  // Training stopped inside an epoch, after `steps_run` steps and `seconds`
  // of this run's part of `epoch`: ends a line rewritten in place and, when
  // profiling, says where that part's time went (`time`), so a long epoch
  // stopped early is profiled too. (time.steps counts updates, of which a
  // 1-vs-all ComplEx epoch makes one every few steps.)
  void stopped(int epoch, std::size_t steps_run, const TimeSplit& time, double seconds);

 private:
  // Seconds and epochs done, of epochs with proofs [0] and ComplEx-only ones
  // [1]: each kind's ETA at its own pace (seconds against minutes on WN18RR).
  struct Pace {
    double seconds = 0;
    int epochs = 0;
  };
  bool is_complex_only(int epoch) const;
  int epochs_left_like(int epoch) const;
  std::string prover_epochs_after(int epoch) const;
  Pace pace_[2];
  using Clock = std::chrono::steady_clock;
  std::ostream* out_;
  const TrainOptions& options_;
  int first_epoch_;
  std::size_t steps_per_epoch_;
  Clock::time_point start_ = Clock::now(), epoch_start_ = start_, last_line_ = start_;
};

}  // namespace ntp
