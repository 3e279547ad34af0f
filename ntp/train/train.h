// ntp/train/train.h: training, the one entry point. A run makes a fresh model
// over the training data (or resumes one from its checkpoint) and learns its
// embeddings, and so its rules, by proving the training facts: each step
// takes `batch` facts as positives, corrupts each into `negatives` false
// atoms, proves them all with each positive masked out of its own proofs, and
// minimises the binary cross-entropy of the proof scores (epochs.h, step.h).
//
// Around the epochs, as options of the run (RunOptions): a dev metric every N
// epochs (dev_metric.h) choosing the model kept at the model path (the best or
// the last), a checkpoint after every epoch (checkpoint.h) to resume from,
// stopping on request with a checkpoint, and a JSON log line per epoch.
#pragma once

#include "ntp/train/non_finite_error.h"
#include "ntp/train/options.h"
#include "ntp/train/training_data.h"

#include <iosfwd>
#include <string>

namespace ntp {

// Trains on `data` and writes the model to run.model_path, its checkpoint to
// checkpoint_path(run.model_path) and the log; `progress` (may be null) gets
// a line per epoch (with the dev metric) and lines during each epoch
// (progress.h). Throws std::invalid_argument for options out of range
// (check_options) or when resuming with other settings than the
// checkpoint's, naming them; std::runtime_error when a file cannot be read or
// written; NonFiniteError (non_finite_error.h) when the loss or an embedding
// stops being finite, leaving the files of the last complete epoch.
//
// With several RunOptions::l2_choices and dev atoms, one such run per value,
// each to l2_candidate_path(run.model_path, value) and its checkpoint (and
// log, l2_candidate_path(run.log_path, value)), in
// order (a resumed choice resumes each from its own checkpoint); the best on
// dev becomes run.model_path and its checkpoint (and its log run.log_path),
// the others' model files are removed (their logs stay), and the result is
// the chosen run's with l2_choice set.
RunResult train(const TrainingData& data, const ModelOptions& model, const TrainOptions& options, const RunOptions& run,
                std::ostream* progress);

// With RunOptions::mined_templates_on_dev and data whose templates can be
// chosen (can_choose_templates, mined_templates.h), the above twice: with
// the data's templates, to template_candidate_path(run.model_path, "file"),
// and with templates mined from its facts (with_mined_templates), to
// template_candidate_path(run.model_path, "mined"), each with its own
// checkpoint, log and choices; the one template_candidate_kept keeps (a
// final model clearly better on dev, else the better proofs alone) becomes
// run.model_path, as for L2, and the result is its run's with
// templates_choice set.
//
// Where a choice of L2 trains its candidate for `l2`: "M.l2-0.001".
std::string l2_candidate_path(const std::string& model_path, double l2);
// Where a choice of templates trains its candidate "file" or "mined": "M.mined-templates".
std::string template_candidate_path(const std::string& model_path, const std::string& templates);

}  // namespace ntp
