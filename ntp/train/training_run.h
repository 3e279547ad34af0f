// ntp/train/training_run.h: training you can leave running. Around train(): a dev
// metric every N epochs, the best (or last) model kept at the model path, a
// checkpoint after every epoch, resumption from it, stopping on request
// (Ctrl-C) with a checkpoint, and a JSON log line per epoch.
#pragma once

#include "ntp/train/checkpoint.h"
#include "ntp/train/train.h"
#include "ntp/train/training_data.h"

#include <atomic>
#include <iosfwd>
#include <string>
#include <vector>

namespace ntp {


// Which model the model path receives when a dev metric is measured.
//   Best  the one after the epoch with the best dev metric (the default: a
//         metric measured during training is there to choose a model with;
//         it stops an overfitting run from ending on a worse model).
//   Last  the one after the last epoch.
// Without a measured dev metric both are the last model.
enum class Keep { Best, Last };
const char* keep_name(Keep keep);                        // "best", "last"
bool keep_from_name(const std::string& name, Keep* keep);  // false if unknown

struct RunOptions {
  std::string model_path;  // the model; its checkpoint is checkpoint_path(model_path)
  int eval_every = 0;      // dev metric after every N-th epoch (0 = never; needs dev atoms)
  Keep keep = Keep::Best;
  std::string log_path;    // one JSON object per epoch ("" = no log); appended to when resuming
  bool resume = false;     // continue from the checkpoint (its settings must match)
  const std::atomic<bool>* stop = nullptr;  // raised (by a signal handler): finish the step, checkpoint, return
};

struct RunResult {
  bool finished = false;   // false: stopped; resume from `checkpoint`
  int epochs_done = 0;     // complete epochs
  std::size_t steps_done = 0;  // steps of the next epoch, when stopped inside it
  std::string metric;      // the dev metric's name ("" when none was measured)
  double best_dev = -1;
  int best_epoch = 0;
  std::string checkpoint;  // its path
};

// The dev metric: filtered MRR over the dev facts (ranking protocol), or for
// a labelled dev file (WN11) accuracy with per-relation thresholds chosen on
// dev itself. Its name is "mrr" or "accuracy"; "" and -1 without dev atoms.
std::string dev_metric_name(const TrainingData& data);
double dev_metric(const Model& model, const TrainingData& data);

// Everything that shapes the trained model except the number of epochs (which
// a resumed run may extend) and the threads: one `name=value` line each, named
// as `ntp train`'s options, and a hash of the data.
std::string training_settings(const TrainingData& data, const ModelOptions& model, const TrainOptions& train,
                              const RunOptions& run);

// Trains a new model on `data` (or resumes), writing the model, its checkpoint
// and the log as described above; `progress` (may be null) gets train()'s
// lines with the dev metric. Throws std::invalid_argument when resuming with
// other settings than the checkpoint's, naming them.
RunResult run_training(const TrainingData& data, const ModelOptions& model, const TrainOptions& train,
                       const RunOptions& run, std::ostream* progress);

}  // namespace ntp
