// Shared by the ntp tests that learn an inverse rule s(X, Y) :- r(Y, X) on a
// tiny KB: the training settings they were written for. They are not
// `ntp train`'s defaults (the recipe for real KBs); they learn the rule of a
// 17-fact KB in 60 quick epochs, and the tests' fixed seeds depend on them.
#pragma once

#include "ntp/train/options.h"

#include <cstdint>

inline ntp::TrainOptions inverse_rule_training(std::uint64_t seed, double learning_rate) {
  ntp::TrainOptions o;
  o.epochs = 60;
  o.batch = 4;
  o.learning_rate = learning_rate;
  o.l2 = 0;
  o.negatives = 2;
  o.seed = seed;
  return o;
}
