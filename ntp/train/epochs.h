// ntp/train/epochs.h: the epoch loop under train() (train.h), for the library
// and for tests that train a model they built in memory. Each epoch shuffles
// the facts and takes their steps (batch.h, step.h); around the steps, the
// recall probe, the progress lines and the timer listen (recall_probe.h,
// progress.h, step_timer.h), and the position is kept in a TrainingState
// that a checkpoint can store and a later call resume from.
#pragma once

#include "ntp/kb/process_share.h"
#include "ntp/model/model.h"
#include "ntp/train/options.h"
#include "ntp/train/training_state.h"

#include <functional>
#include <iosfwd>

namespace ntp {

// What the loop tells its caller, and asks it.
struct EpochHooks {
  std::ostream* progress = nullptr;  // progress lines (progress.h); null: none
  // After each epoch, with the state already at its end: may set the
  // report's note (a dev metric), shown on the epoch's progress line.
  std::function<void(EpochReport&)> after_epoch = [](EpochReport&) {};
  // Asked after every step: true stops training there (the last epoch is
  // finished regardless). In a group, asked of every process: the group
  // stops where any of them says so.
  std::function<bool()> stop_requested = [] { return false; };
  // The processes training together, each proving its share of every step's
  // goals (shared_gradient.h); alone by default.
  ProcessShare share;
};

// Trains `model` in place on model.kb.facts, from the start or, if `state`
// is started, from where it stopped (the model must be the one it was saved
// with). `state` follows the position: after every epoch, and after the step
// at which a stop was requested. Returns true when every epoch has run,
// false when stopped. Throws std::invalid_argument for bad options or a
// state of another KB, and NonFiniteError (non_finite_error.h).
bool train_epochs(Model& model, const TrainOptions& options, TrainingState& state, const EpochHooks& hooks);

// From the start, with only the hooks' after_epoch (or none).
void train_epochs(Model& model, const TrainOptions& options,
                  const std::function<void(EpochReport&)>& after_epoch = [](EpochReport&) {});

}  // namespace ntp
