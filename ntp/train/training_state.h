// ntp/train/training_state.h: where the epoch loop is (epochs.h), with
// everything random or accumulated that the next step depends on, so that
// training stopped there and resumed from it takes exactly the steps an
// uninterrupted run takes (with an exact fact index: table or brute; the
// approximate ones are rebuilt on resumption, not restored). A checkpoint
// (checkpoint.h) stores it next to the model.
#pragma once

#include "autodiff/tape.h"

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace ntp {

struct TrainingState {
  bool started = false;            // false: nothing to resume, train from the start
  int epochs_done = 0;             // complete epochs
  std::size_t steps_done = 0;      // steps of the next epoch already taken
  double loss_sum = 0;             // that epoch's sums so far
  double recall_sum = 0;
  int recall_probes = 0;
  std::string rng, probe_rng;      // std::mt19937_64 states, as rng_state_text writes them
  std::vector<std::size_t> order;  // the facts' order, reshuffled in place each epoch
  std::vector<ad::Matrix> optimizer;  // ad::Optimizer::take_state(): moved here when saved (epochs.cpp)
  // Seconds spent training so far, by every process that took these epochs
  // and steps: what a choice made after training may spend a share of.
  double seconds = 0;
};

// A random generator's state as text (its operator<<), and back; restoring
// throws std::invalid_argument if the text is damaged.
std::string rng_state_text(const std::mt19937_64& rng);
void restore_rng_state(std::mt19937_64& rng, const std::string& text);

}  // namespace ntp
