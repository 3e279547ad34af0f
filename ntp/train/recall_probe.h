// ntp/train/recall_probe.h: how well an approximate fact index finds the
// nearest facts while the embeddings move under it. Every `recall_every`
// steps the index records the queries of that step's proof search; a sample
// of `recall_sample` of them (fewer on large KBs, where each exact answer
// costs more: recall_probe.cpp) is asked again of an exact (brute force)
// index, and recall@1 of the approximate answers is summed for the epoch's
// report.
//
// The sample is drawn from a generator of its own, so probing never changes
// training's random draws. An exact index, or a search without retrieval
// (k = 0), is never probed.
#pragma once

#include "ntp/index/fact_index.h"
#include "ntp/model/model.h"
#include "ntp/train/options.h"
#include "ntp/train/training_state.h"

#include <cstddef>
#include <memory>
#include <random>

namespace ntp {

class RecallProbe {
 public:
  RecallProbe(const Model& model, FactIndex& facts, const TrainOptions& options);

  // Around a step's proof search: before_search starts recording if the step
  // (0-based in its epoch) is due; after_search measures what was recorded.
  void before_search(std::size_t step);
  void after_search();
  // The exact index follows the embeddings as the approximate one does.
  void embeddings_moved(const MovedRows& moved);
  void all_moved();

  // This epoch's probes: their number and the mean recall@1 (-1 when none).
  void start_epoch();
  int probes() const { return probes_; }
  double mean_recall() const { return probes_ > 0 ? recall_sum_ / probes_ : -1; }

  // The sums and the generator, into and out of a training state.
  void save(TrainingState& state) const;
  void restore(const TrainingState& state);

 private:
  FactIndex& facts_;
  std::unique_ptr<FactIndex> exact_;  // null when the index is not probed
  std::size_t every_, sample_;
  bool recording_ = false;
  std::mt19937_64 rng_;
  double recall_sum_ = 0;
  int probes_ = 0;
};

}  // namespace ntp
