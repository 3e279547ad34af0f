// ntp/train/epochs.cpp: the epoch loop (see epochs.h).
//
//   for each epoch:
//     shuffle the facts (unless resuming inside the epoch)
//     for each update: next batch, train_step (search, score, loss, backward,
//                    update, refresh; in the first complex_epochs, complex_step:
//                    ComplEx's loss alone, or complex_all_step on several
//                    steps' positives at once), then stop if asked, else progress
//     report the epoch, save the position, call the caller's hook
#include "ntp/train/epochs.h"

#include "ntp/train/batch.h"
#include "ntp/train/progress.h"
#include "ntp/train/recall_probe.h"
#include "ntp/train/step.h"
#include "ntp/train/step_timer.h"

#include <algorithm>
#include <chrono>

namespace ntp {

namespace {

// In a group, each process probes its part of the sample of a probed step's
// queries (from its own goals' queries), so that probing costs the group what
// it costs one process; the recall reported is process 0's.
TrainOptions probing_share(TrainOptions options, const ProcessShare& share) {
  check_share(share);
  options.recall_sample = (options.recall_sample + share.count - 1) / share.count;
  return options;
}

class EpochLoop {
 public:
  // The members are built in order: the batches (the KB must have facts),
  // the learner, the probe on the learner's fact index, the position to
  // start from (restored from the state), and the progress lines from there.
  EpochLoop(Model& model, const TrainOptions& options, TrainingState& state, const EpochHooks& hooks)
      : options_(options),
        state_(state),
        hooks_(hooks),
        batches_(model.kb, options),
        learner_(model, options),
        probe_(model, *learner_.facts, probing_share(options, hooks.share)),
        start_(resume()),
        progress_(hooks.progress, options, start_.epoch, batches_.steps_per_epoch()) {
    learner_.share = hooks.share;
  }

  bool run() {
    for (int epoch = start_.epoch; epoch <= options_.epochs; ++epoch)
      if (!run_epoch(epoch, epoch == start_.epoch ? start_.step : 0)) return false;
    return true;
  }

 private:
  StepPosition resume();
  bool stop_requested() const { return any_process(hooks_.share, hooks_.stop_requested()); }
  bool run_epoch(int epoch, std::size_t first_step);
  std::size_t steps_per_update(int epoch) const;
  double run_steps(int epoch, std::size_t first, std::size_t last, double temperature, StepTimer& timer);
  void finish_epoch(int epoch, double seconds, TimeSplit time);
  void save(int epochs_done, std::size_t steps_done);
  void take_moments_back();

  const TrainOptions& options_;
  TrainingState& state_;
  const EpochHooks& hooks_;
  TrainingBatches batches_;
  Learner learner_;
  RecallProbe probe_;
  // Declared before start_, whose resume() sets it (members are built in
  // the order they are declared).
  double loss_sum_ = 0;  // over the current epoch's steps
  StepPosition start_;
  ProgressPrinter progress_;
};

// Where to start: epoch 1, or the position, random generators, fact order,
// sums and optimiser moments the state holds. The fact index was built from
// the embeddings, which are the model's own.
StepPosition EpochLoop::resume() {
  if (!state_.started) return {1, 0};
  batches_.restore(state_);
  probe_.restore(state_);  // the optimiser's moments are taken when an epoch starts
  loss_sum_ = state_.loss_sum;
  return {state_.epochs_done + 1, state_.steps_done};
}

// Steps `first_step`.. of `epoch`; a resumed epoch starts inside, with its
// order and sums restored. False when stopped: inside the epoch, or after it
// when it was not the last.
bool EpochLoop::run_epoch(int epoch, std::size_t first_step) {
  const auto epoch_start = std::chrono::steady_clock::now();
  take_moments_back();
  if (first_step == 0) {
    batches_.shuffle();
    loss_sum_ = 0;
    probe_.start_epoch();
  }
  progress_.start_epoch();
  TimeSplit time;
  StepTimer timer(time);
  learner_.facts->reset_stats();
  const double temperature = explore_temperature(options_, epoch);
  const std::size_t steps = batches_.steps_per_epoch();
  for (std::size_t step = first_step; step < steps;) {
    const std::size_t next = std::min(steps, step + steps_per_update(epoch));
    loss_sum_ += run_steps(epoch, step, next, temperature, timer);
    if (next < steps && stop_requested()) {  // at an epoch's end, stop after it
      refresh_rule_rows(learner_);  // the caller saves the model
      save(epoch - 1, next);
      time.index = learner_.facts->stats();
      progress_.stopped(epoch, next - first_step, time, seconds_since(epoch_start));
      return false;
    }
    progress_.after_steps(epoch, step, next - 1, loss_sum_);
    step = next;
  }
  if (epoch == options_.complex_epochs && epoch < options_.epochs) {  // the prover's epochs need a current index
    timer.start();
    rebuild_index(learner_, probe_);
    timer.lap(&TimeSplit::index_maintenance);
  }
  finish_epoch(epoch, seconds_since(epoch_start), time);
  return epoch == options_.epochs || !stop_requested();
}

// Steps that make one update: one, but in ComplEx-only epochs with the
// 1-vs-all loss as many as complex_batch positives take.
std::size_t EpochLoop::steps_per_update(int epoch) const {
  if (epoch > options_.complex_epochs || options_.complex_loss != ComplexLoss::All) return 1;
  const auto batch = static_cast<std::size_t>(options_.batch);
  return (static_cast<std::size_t>(options_.complex_batch) + batch - 1) / batch;
}

// Steps [first, last) of `epoch` as one update; returns their summed loss
// (a 1-vs-all update's loss counts once for each step it stands for).
double EpochLoop::run_steps(int epoch, std::size_t first, std::size_t last, double temperature, StepTimer& timer) {
  const StepPosition at{epoch, first};
  if (epoch > options_.complex_epochs) return train_step(learner_, probe_, batches_.goals(first), temperature, at, timer);
  if (options_.complex_loss == ComplexLoss::Sampled) return complex_step(learner_, batches_.goals(first), at, timer);
  const std::vector<Atom> positives = batches_.positives(first, last);
  const std::vector<ad::Index> candidates =
      complex_candidates(learner_.model, positives, options_.complex_candidates, options_.seed, at);
  return complex_all_step(learner_, positives, candidates, at, timer) * static_cast<double>(last - first);
}

// The epoch's report: saved position first, then the caller's hook (which
// may write a checkpoint and a note), then the progress line.
void EpochLoop::finish_epoch(int epoch, double seconds, TimeSplit time) {
  refresh_rule_rows(learner_);  // the hook may evaluate or save the model
  EpochReport report;
  report.epoch = epoch;
  report.mean_loss = loss_sum_ / static_cast<double>(batches_.steps_per_epoch());
  report.seconds = seconds;
  report.recall_probes = probe_.probes();
  report.recall_at_1 = probe_.mean_recall();
  time.index = learner_.facts->stats();
  if (options_.profile) report.time = time;
  save(epoch, 0);
  hooks_.after_epoch(report);
  progress_.after_epoch(report, learner_.facts->name());
}

// The position after `epochs_done` epochs and `steps_done` steps, into the state.
void EpochLoop::save(int epochs_done, std::size_t steps_done) {
  state_.started = true;
  state_.epochs_done = epochs_done;
  state_.steps_done = steps_done;
  state_.loss_sum = loss_sum_;
  batches_.save(state_);
  probe_.save(state_);
  state_.optimizer = learner_.optimizer->take_state();
  if (steps_done == 0) {  // between epochs: the next one starts its sums afresh
    state_.loss_sum = state_.recall_sum = 0;
    state_.recall_probes = 0;
  }
}

// The optimiser's moments live in one place, never copied (a large KB's are
// twice its tables: 0.8 GB of 2M facts): in the optimiser while steps run,
// in state_.optimizer once saved or restored, until the next epoch starts.
// So the state's list is empty exactly when the optimiser holds them.
void EpochLoop::take_moments_back() {
  if (state_.optimizer.empty()) return;
  learner_.optimizer->set_state(std::move(state_.optimizer));
  state_.optimizer.clear();  // moved from: empty, and known to be
}

}  // namespace

bool train_epochs(Model& model, const TrainOptions& options, TrainingState& state, const EpochHooks& hooks) {
  check_options(options);
  EpochLoop loop(model, options, state, hooks);
  return loop.run();
}

void train_epochs(Model& model, const TrainOptions& options, const std::function<void(EpochReport&)>& after_epoch) {
  TrainingState state;
  EpochHooks hooks;
  hooks.after_epoch = after_epoch;
  train_epochs(model, options, state, hooks);
}

}  // namespace ntp
