// ntp/train/train.cpp: a training run around the epoch loop: the model to
// start from, the files it keeps, and what it does after each epoch (see
// train.h).
#include "ntp/train/train.h"

#include "ntp/train/checkpoint.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/epochs.h"
#include "ntp/train/new_model.h"
#include "ntp/train/settings.h"
#include "ntp/kb/build_info.h"
#include "ntp/kb/text.h"

#include <cstdio>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ntp {

namespace {

// The checkpoint a run starts from: the one it resumes (whose settings must
// be `settings`) or a fresh model.
Checkpoint starting_point(const TrainingData& data, const ModelOptions& model_options, const std::string& settings,
                          bool resume, const std::string& checkpoint, std::ostream* progress) {
  Checkpoint c;
  if (!resume) {
    c.model = new_model(data, model_options);
    c.settings = settings;
    return c;
  }
  if (!std::ifstream(checkpoint)) throw std::runtime_error(checkpoint + ": no checkpoint to resume from");
  c = load_checkpoint(checkpoint);
  check_same_settings(settings, c.settings, checkpoint);
  if (progress)
    *progress << "resuming from " << checkpoint << " after epoch " << c.state.epochs_done
              << (c.state.steps_done ? ", step " + std::to_string(c.state.steps_done) : std::string()) << "\n";
  return c;
}

// Fails now, not after hours of training, if a file cannot be written.
void check_writable(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    const std::string probe = path + ".tmp";
    if (!std::ofstream(probe)) throw std::runtime_error(probe + ": cannot open for writing");
    std::remove(probe.c_str());
  }
}

// One JSON object per epoch, for plotting, naming the build that wrote it.
std::string log_line(const EpochReport& r, const std::string& metric, double dev) {
  JsonObject line;
  line.add("epoch", r.epoch).add("loss", r.mean_loss).add("seconds", r.seconds);
  if (!metric.empty()) line.add("dev_" + metric, dev);
  if (r.recall_probes > 0) line.add("recall_at_1", r.recall_at_1);
  return line.add("build", build_line()).text();
}

// What a run keeps after each epoch: the dev metric when due (and the model
// when it is the best so far, with Keep::Best), the log line, the checkpoint.
class EpochKeeper {
 public:
  EpochKeeper(const TrainingData& data, const RunOptions& run, std::string metric, std::string checkpoint, Checkpoint& c)
      : data_(data), run_(run), metric_(std::move(metric)), checkpoint_(std::move(checkpoint)), c_(c) {
    if (run.log_path.empty()) return;
    log_.open(run.log_path, run.resume ? std::ios::app : std::ios::trunc);
    if (!log_) throw std::runtime_error(run.log_path + ": cannot open the log for writing");
  }

  void after_epoch(EpochReport& report) {
    const bool measured = !metric_.empty() && report.epoch % run_.eval_every == 0;
    const double dev = measured ? dev_metric(c_.model, data_) : -1;
    if (measured) report.note = measure(report.epoch, dev);
    if (log_.is_open()) log_ << log_line(report, measured ? metric_ : "", dev) << std::endl;
    save_checkpoint(c_, checkpoint_);
  }

 private:
  // Keeps the best dev metric (and its model); the note for the progress line.
  std::string measure(int epoch, double dev) {
    if (c_.best_epoch == 0 || dev > c_.best_dev) {
      c_.best_dev = dev;
      c_.best_epoch = epoch;
      if (run_.keep == Keep::Best) save_model(c_.model, run_.model_path);
    }
    char note[96];
    std::snprintf(note, sizeof note, "  dev %s %.4f (best %.4f, epoch %d)", metric_.c_str(), dev, c_.best_dev,
                  c_.best_epoch);
    return note;
  }

  const TrainingData& data_;
  const RunOptions& run_;
  const std::string metric_, checkpoint_;
  Checkpoint& c_;
  std::ofstream log_;
};

// Whether the run chooses its model's combine rule on dev (RunOptions::
// combine_from); CombineFrom::Dev without what it needs throws.
bool chooses_combine(const ModelOptions& model_options, const RunOptions& run, const TrainingData& data) {
  switch (run.combine_from) {
    case CombineFrom::Given: return false;
    case CombineFrom::Dev: check_combine_choice(model_options.prover.complex, data); return true;
    case CombineFrom::Auto: break;
  }
  return model_options.prover.complex && !dev_metric_name(data).empty();
}

// The kept model's combine rule, chosen on dev and saved with it.
std::string choose_kept_combine(const TrainingData& data, const RunOptions& run, std::ostream* progress) {
  Model kept = load_model(run.model_path);
  if (progress)
    *progress << "choosing the combine rule on " << dev_atoms_measured(data, kCombineChoiceDevAtoms) << " dev atoms"
              << std::endl;
  const CombineChoice choice = choose_combine(kept, data, kCombineChoiceDevAtoms, progress);
  save_model(kept, run.model_path);
  return describe(choice, dev_metric_name(data));
}

}  // namespace

RunResult train(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                const RunOptions& run, std::ostream* progress) {
  check_options(model_options);
  check_options(options);
  check_options(run);
  RunResult result;
  result.metric = run.eval_every > 0 ? dev_metric_name(data) : "";
  const bool combine_on_dev = chooses_combine(model_options, run, data);
  if (run.eval_every > 0 && result.metric.empty())
    throw std::invalid_argument("a dev metric every " + std::to_string(run.eval_every) + " epochs needs dev atoms");
  result.checkpoint = checkpoint_path(run.model_path);
  const std::string settings = training_settings(data, model_options, options, run);
  Checkpoint c = starting_point(data, model_options, settings, run.resume, result.checkpoint, progress);
  check_writable({run.model_path, result.checkpoint});
  EpochKeeper keeper(data, run, result.metric, result.checkpoint, c);

  EpochHooks hooks;
  hooks.progress = progress;
  hooks.after_epoch = [&keeper](EpochReport& report) { keeper.after_epoch(report); };
  hooks.stop_requested = [&run] { return run.stop != nullptr && run.stop->load(); };
  result.finished = train_epochs(c.model, options, c.state, hooks);
  if (!result.finished) save_checkpoint(c, result.checkpoint);
  else if (run.keep == Keep::Last || c.best_epoch == 0) save_model(c.model, run.model_path);
  if (result.finished && combine_on_dev) result.combine_choice = choose_kept_combine(data, run, progress);
  result.epochs_done = c.state.epochs_done;
  result.steps_done = c.state.steps_done;
  result.best_dev = c.best_dev;
  result.best_epoch = c.best_epoch;
  return result;
}

}  // namespace ntp
