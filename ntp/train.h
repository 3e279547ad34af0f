// ntp/train.h: learning embeddings (and so rules) by proving facts.
//
// Each step takes `batch` training facts as positives, corrupts each into
// `negatives` false atoms (subject and object alternately replaced by a random
// constant; corruptions that are known facts are rejected and redrawn), proves
// all of them with the fact being proven masked out of its own proofs, and
// minimises the binary cross-entropy of the proof scores with Adam (or SGD,
// AdaGrad), L2 regularisation and gradient clipping.
#pragma once

#include "ntp/model.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace ntp {

struct TrainOptions {
  int epochs = 100;
  int batch = 10;                 // positives per step
  int negatives = 2;              // corruptions per positive
  double learning_rate = 1e-3;
  double l2 = 1e-3;
  double clip = 1.0;              // element-wise gradient clip, 0 = off
  std::string optimizer = "adam";
  std::uint64_t seed = 0;
  int refresh_every = 0;          // steps between rebuilds of the fact indices; 0 = auto:
                                  // every step for `table` (cheap), every 100 for ANN indices
  bool progress_inline = false;   // rewrite one progress line (a terminal) or print a line per epoch
};

struct EpochReport {
  int epoch = 0;                  // 1-based
  double mean_loss = 0;
  double seconds = 0;
};

// Trains `model` in place on model.kb.facts. `progress` (may be null) gets
// the loss, elapsed time and ETA: a line per epoch, and when
// options.progress_inline also a line rewritten in place during the epoch.
// `on_epoch` (may be empty) is called after each epoch.
void train(Model& model, const TrainOptions& options, std::ostream* progress,
           const std::function<void(const EpochReport&)>& on_epoch = {});

}  // namespace ntp
