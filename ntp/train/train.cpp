// ntp/train/train.cpp: a training run around the epoch loop: the model to
// start from, the files it keeps, and what it does after each epoch (see
// train.h).
#include "ntp/train/train.h"

#include "ntp/train/candidates_on_dev.h"
#include "ntp/train/carved_dev.h"
#include "ntp/train/checkpoint.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/width_choice.h"
#include "ntp/train/mined_rules_choice.h"
#include "ntp/train/mined_templates.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/epochs.h"
#include "ntp/train/new_model.h"
#include "ntp/train/settings.h"
#include "ntp/kb/build_info.h"
#include "ntp/kb/process_share.h"
#include "ntp/kb/text.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
  EpochKeeper(const TrainingData& data, const RunOptions& run, std::string metric, std::string checkpoint, Checkpoint& c,
              std::ostream* progress)
      : data_(data), run_(run), metric_(std::move(metric)), checkpoint_(std::move(checkpoint)), c_(c),
        progress_(progress), seconds_before_(c.state.seconds), start_(std::chrono::steady_clock::now()) {
    if (run.log_path.empty()) return;
    log_.open(run.log_path, run.resume ? std::ios::app : std::ios::trunc);
    if (!log_) throw std::runtime_error(run.log_path + ": cannot open the log for writing");
  }

  void after_epoch(EpochReport& report) {
    const bool measured = !metric_.empty() && report.epoch % run_.eval_every == 0;
    // On a large KB the measurement takes minutes: say what is running.
    if (measured && progress_)
      *progress_ << "epoch " << report.epoch << ": measuring " << metric_ << " on "
                 << dev_atoms_measured(data_, 0) << " dev atoms\n";
    const double dev = measured ? dev_metric(c_.model, data_) : -1;
    if (measured) report.note = measure(report.epoch, dev);
    if (log_.is_open()) log_ << log_line(report, measured ? metric_ : "", dev) << std::endl;
    count_time();
    c_.choices = {};  // made on an earlier model, if any
    save_checkpoint(c_, checkpoint_);
  }

  // The training's seconds so far into the checkpoint's state: those of the
  // processes before this one and this one's.
  void count_time() {
    const std::chrono::duration<double> mine = std::chrono::steady_clock::now() - start_;
    c_.state.seconds = seconds_before_ + mine.count();
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
  std::ostream* progress_;  // null: quiet
  const double seconds_before_;
  const std::chrono::steady_clock::time_point start_;
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

// A choice made on dev after training may take this share of the training's
// time (or a minute, whichever is more): ranking dev facts under three rules
// on a large KB would otherwise take longer than the training itself.
constexpr double kChoiceShareOfTraining = 0.2;
constexpr double kChoiceMinSeconds = 60;

// The limits of a choice made after `training_seconds` of training.
ChoiceLimits choice_limits(const RunOptions& run, double training_seconds) {
  ChoiceLimits limits;
  limits.seconds = std::max(kChoiceMinSeconds, kChoiceShareOfTraining * training_seconds);
  limits.stop = run.stop;
  limits.share = run.share;
  return limits;
}

// "choosing WHAT on N dev atoms (at most T)", before a choice on dev.
void announce_choice(std::ostream* progress, const std::string& what, const TrainingData& data,
                     const ChoiceLimits& limits) {
  if (progress)
    *progress << "choosing " << what << " on " << dev_atoms_measured(data, kCombineChoiceDevAtoms) << " dev atoms (at most "
              << format_duration(limits.seconds) << ")" << std::endl;
}

// A stop asked for while a choice ranks dev (every process of a group
// agrees on it) leaves the run unfinished: the choice, made on fewer atoms
// than asked, is not kept, and --resume makes it again in full, as a stop
// during training resumes the training. Says so; `result` is unfinished.
void stopped_choosing(RunResult& result, std::ostream* progress) {
  if (progress) *progress << "stopped while choosing on dev: --resume makes this choice again" << std::endl;
  result.finished = false;
}

// The choices made on the kept model after training, in order, on one copy
// of it loaded and saved once: its proof search width, among multiples of
// the k it trained with (`trained_k`: the file of a finished run resumed may
// hold an earlier choice; width_choice.h), then, when `combine_on_dev`, its
// combine rule at that width. Each is described in `result`; *kept_dev (if
// given) gets the chosen rule's dev metric. A stop leaves the model file
// as training wrote it (stopped_choosing).
void choose_on_kept(const TrainingData& data, const RunOptions& run, int trained_k, bool combine_on_dev,
                    RunResult& result, std::ostream* progress, double* kept_dev) {
  Model kept = load_model(run.model_path);
  kept.prover.k_facts = trained_k;
  const ChoiceLimits limits = choice_limits(run, result.training_seconds);  // each choice's own budget
  if (can_choose_width(kept, data)) {
    announce_choice(progress, "the proof search width", data, limits);
    const WidthChoice choice = choose_width(kept, data, kCombineChoiceDevAtoms, progress, limits);
    if (choice.stopped) return stopped_choosing(result, progress);
    result.width_choice = describe(choice, dev_metric_name(data));
  }
  if (combine_on_dev) {
    announce_choice(progress, "the combine rule", data, limits);
    const CombineChoice choice = choose_combine(kept, data, kCombineChoiceDevAtoms, progress, limits);
    if (choice.stopped) return stopped_choosing(result, progress);
    result.combine_choice = describe(choice, dev_metric_name(data));
    if (kept_dev) *kept_dev = choice.chosen_metric();
  }
  if (!result.width_choice.empty() || combine_on_dev) save_model(kept, run.model_path);
}

// Which choices a run asks for on its finished model, as ChoicesMade::asked
// records them: a record made under other options is not trusted.
std::string choices_asked(const RunOptions& run, bool combine_on_dev) {
  return std::string("combine on dev ") + (combine_on_dev ? "yes" : "no") + ", mined rules on dev " +
         (run.mined_rules_on_dev ? "yes" : "no");
}

// Whether a finished run resumed has made its width and combine choices:
// its checkpoint records them, made under the same options, for the model
// file as it is. In a group, only when every process's checkpoint does (a
// choice ranks dev together, so all make it or none).
bool choices_on_kept_made(const ChoicesMade& made, const RunOptions& run, bool combine_on_dev) {
  const bool mine = made.on_kept && made.asked == choices_asked(run, combine_on_dev) &&
                    made.model_file == file_fingerprint(run.model_path);
  return every_process(run.share, mine);
}

// Their descriptions, for a run that need not make them again.
void reuse_choices_on_kept(const ChoicesMade& made, RunResult& result, std::ostream* progress) {
  result.width_choice = made.width;
  result.combine_choice = made.combine;
  const std::string what = made.width.empty()     ? "combine rule was"
                           : made.combine.empty() ? "width was"
                                                  : "width and combine rule were";
  if (progress && !(made.width.empty() && made.combine.empty()))
    *progress << "the " << what << " chosen on dev before: kept" << std::endl;
}

// The end of a finished run: its model file, then the choices made on it
// (choose_on_kept), recorded in the checkpoint once made.
void finish_run(const TrainingData& data, const RunOptions& run, int trained_k, bool combine_on_dev, Checkpoint& c,
                RunResult& result, std::ostream* progress, double* kept_dev) {
  if (run.keep == Keep::Last || c.best_epoch == 0) save_model(c.model, run.model_path);
  choose_on_kept(data, run, trained_k, combine_on_dev, result, progress, kept_dev);
  if (!result.finished) return;
  c.choices.on_kept = true;
  c.choices.width = result.width_choice;
  c.choices.combine = result.combine_choice;
  c.choices.asked = choices_asked(run, combine_on_dev);
  c.choices.model_file = file_fingerprint(run.model_path);
  save_checkpoint(c, result.checkpoint);
}

// One run (train.h, without a choice of L2). When it chose its combine rule
// on dev, *kept_dev (if given) gets the chosen rule's dev metric, so that a
// choice of L2 on a labelled dev file need not measure it again.
RunResult train_one(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                    const RunOptions& run, std::ostream* progress, double* kept_dev = nullptr) {
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
  EpochKeeper keeper(data, run, result.metric, result.checkpoint, c, progress);

  EpochHooks hooks;
  hooks.progress = progress;
  hooks.after_epoch = [&keeper](EpochReport& report) { keeper.after_epoch(report); };
  hooks.stop_requested = [&run] { return run.stop != nullptr && run.stop->load(); };
  hooks.share = run.share;
  const int epochs_before = c.state.epochs_done;
  const std::size_t steps_before = c.state.steps_done;
  result.finished = train_epochs(c.model, options, c.state, hooks);
  keeper.count_time();
  result.training_seconds = c.state.seconds;
  if (c.state.epochs_done != epochs_before || c.state.steps_done != steps_before) c.choices = {};  // trained on
  if (!result.finished) save_checkpoint(c, result.checkpoint);
  else if (choices_on_kept_made(c.choices, run, combine_on_dev)) reuse_choices_on_kept(c.choices, result, progress);
  else finish_run(data, run, model_options.prover.k_facts, combine_on_dev, c, result, progress, kept_dev);
  result.epochs_done = c.state.epochs_done;
  result.steps_done = c.state.steps_done;
  result.best_dev = c.best_dev;
  result.best_epoch = c.best_epoch;
  return result;
}

void remove_run_files(const std::string& model_path) {
  std::remove(model_path.c_str());
  std::remove(checkpoint_path(model_path).c_str());
}

void move_run_files(const std::string& from, const std::string& to) {
  for (const auto& [a, b] : {std::pair{from, to}, std::pair{checkpoint_path(from), checkpoint_path(to)}})
    if (std::rename(a.c_str(), b.c_str()) != 0) throw std::runtime_error(a + ": cannot move it to " + b);
}

// Candidate `kept` of a choice's runs, each written to run.model_path + its
// suffix, becomes run.model_path with its checkpoint; the others' model
// files are removed. The kept run's log becomes the one --log names; the
// others keep their suffix, to plot beside it.
void keep_candidate(const RunOptions& run, const std::vector<std::string>& suffixes, std::size_t kept) {
  for (std::size_t i = 0; i < suffixes.size(); ++i)
    if (i != kept) remove_run_files(run.model_path + suffixes[i]);
  move_run_files(run.model_path + suffixes[kept], run.model_path);
  const std::string kept_log = run.log_path.empty() ? "" : run.log_path + suffixes[kept];
  if (!kept_log.empty() && std::rename(kept_log.c_str(), run.log_path.c_str()) != 0)
    throw std::runtime_error(kept_log + ": cannot move it to " + run.log_path);
}

// The index of the best dev metric, the earlier on a tie.
std::size_t best_on_dev(const std::vector<std::pair<std::string, double>>& dev) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < dev.size(); ++i)
    if (dev[i].second > dev[best].second) best = i;
  return best;
}

// The kept candidate's result, with the choice's training time: every candidate's.
RunResult chosen_result(const std::vector<RunResult>& results, std::size_t best, const RunOptions& run) {
  RunResult result = results[best];
  result.training_seconds = 0;
  for (const RunResult& r : results) result.training_seconds += r.training_seconds;
  result.checkpoint = checkpoint_path(run.model_path);
  return result;
}

// A run with TrainOptions::l2 = `l2` and no choice.
RunResult train_with_l2(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                        const RunOptions& run, double l2, std::ostream* progress, double* kept_dev = nullptr) {
  TrainOptions one = options;
  one.l2 = l2;
  RunOptions one_run = run;
  one_run.l2_choices.clear();
  return train_one(data, model_options, one, one_run, progress, kept_dev);
}

// The dev metric of each finished L2 candidate (at `paths`). Ranked dev
// facts: every model ranked on the same atoms in rounds, within `limits`
// (candidates_on_dev.h); *done gets how far they got. A labelled file: each
// model's accuracy on it, measured by its own combine choice when it made
// one (`combine_metric[i]` >= 0).
std::vector<double> l2_candidates_on_dev(const TrainingData& data, const std::vector<std::string>& paths,
                                         const std::vector<double>& combine_metric, const ChoiceLimits& limits,
                                         std::ostream* progress, RoundsDone* done) {
  std::vector<double> metrics;
  if (!data.dev_labelled.empty()) {
    for (std::size_t i = 0; i < paths.size(); ++i)
      metrics.push_back(combine_metric[i] >= 0 ? combine_metric[i] : dev_metric_with_kept_rules(load_model(paths[i]), data));
    done->atoms = dev_atoms_measured(data, kCombineChoiceDevAtoms);
    return metrics;
  }
  std::vector<Model> models;
  for (const std::string& path : paths) models.push_back(load_model(path));
  std::vector<const Model*> pointers;
  for (const Model& m : models) pointers.push_back(&m);
  const std::vector<const TrainingData*> same(models.size(), &data);
  const CandidatesOnDev measured = measure_candidates_on_dev(pointers, same, false, limits, progress);
  *done = measured.done;
  for (const CandidateOnDev& c : measured.candidates) metrics.push_back(c.final_mrr);
  return metrics;
}

// One run per L2 value, the best on dev kept (train.h). Each candidate is
// measured the same way, on the model its run keeps (its best epoch with
// --keep best and --eval-every) under the combine rule that run chose.
RunResult train_choosing_l2(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                            const RunOptions& run, std::ostream* progress) {
  const std::vector<double>& values = run.l2_choices;
  std::vector<RunResult> results(values.size());
  std::vector<std::string> paths, suffixes;
  std::vector<double> combine_metric(values.size(), -1);  // each combine choice's metric, if one was made
  double training_seconds = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    RunOptions one_run = run;
    one_run.model_path = l2_candidate_path(run.model_path, values[i]);
    if (!run.log_path.empty()) one_run.log_path = l2_candidate_path(run.log_path, values[i]);
    one_run.resume = run.resume && std::ifstream(checkpoint_path(one_run.model_path)).good();
    if (progress) *progress << "L2 " << format_number(values[i]) << " (" << i + 1 << " of " << values.size() << ")\n";
    results[i] = train_with_l2(data, model_options, options, one_run, values[i], progress, &combine_metric[i]);
    if (!results[i].finished) return results[i];
    training_seconds += results[i].training_seconds;
    paths.push_back(one_run.model_path);
    suffixes.push_back(l2_candidate_path("", values[i]));
  }
  const ChoiceLimits limits = choice_limits(run, training_seconds);
  if (data.dev_labelled.empty()) announce_choice(progress, "L2", data, limits);
  RoundsDone done;
  const std::vector<double> metrics = l2_candidates_on_dev(data, paths, combine_metric, limits, progress, &done);
  if (done.stopped) {
    stopped_choosing(results.back(), progress);
    return results.back();
  }
  std::vector<std::pair<std::string, double>> dev;  // each value's dev metric
  for (std::size_t i = 0; i < values.size(); ++i) {
    dev.emplace_back(format_number(values[i]), metrics[i]);
    if (progress) {
      char line[96];
      std::snprintf(line, sizeof line, "L2 %s: dev %s %.4f", dev.back().first.c_str(), dev_metric_name(data).c_str(),
                    metrics[i]);
      *progress << line << "\n";
    }
  }
  const std::size_t best = best_on_dev(dev);
  keep_candidate(run, suffixes, best);
  RunResult result = chosen_result(results, best, run);
  result.l2_choice = describe_dev_choice(dev[best].first, dev_metric_name(data), done.atoms, dev) +
                     rounds_cut_note(done.over_budget, done.stopped, done.atoms);
  return result;
}

}  // namespace

std::string l2_candidate_path(const std::string& model_path, double l2) {
  return model_path + ".l2-" + format_number(l2);
}

namespace {

// Training with the choice of L2, if any (train.h).
RunResult train_model(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                      const RunOptions& run, std::ostream* progress) {
  const std::vector<double>& values = run.l2_choices;
  if (values.size() < 2) return train_one(data, model_options, options, run, progress);
  if (dev_metric_name(data).empty()) return train_with_l2(data, model_options, options, run, values.front(), progress);
  bool started = false;  // a choice under way: some candidate has its checkpoint
  for (double v : values) started = started || std::ifstream(checkpoint_path(l2_candidate_path(run.model_path, v))).good();
  if (!run.resume || started) return train_choosing_l2(data, model_options, options, run, progress);
  // Resuming a finished choice continues the run it chose, if its value is
  // among those given (else the first value, refused as any other setting).
  double chosen = values.front();
  if (std::ifstream(checkpoint_path(run.model_path))) {
    const std::string saved = setting_value(load_checkpoint(checkpoint_path(run.model_path)).settings, "l2");
    for (double v : values)
      if (!saved.empty() && std::strtod(saved.c_str(), nullptr) == v) chosen = v;
  }
  return train_with_l2(data, model_options, options, run, chosen, progress);
}

// The trained model's mined rules and their weight, kept when dev says so
// and saved with it; described in `result` (a stop: stopped_choosing).
// Made once: the run's checkpoint records it (ChoicesMade), and a finished
// run resumed keeps what it recorded for the model file as it is (in a
// group, when every process recorded it).
void choose_kept_mined_rules(const TrainingData& data, const RunOptions& run, RunResult& result,
                             std::ostream* progress) {
  const std::string checkpoint = checkpoint_path(run.model_path);
  Checkpoint c = load_checkpoint(checkpoint);
  const bool recorded = c.choices.mined_rules && c.choices.model_file == file_fingerprint(run.model_path);
  if (every_process(run.share, recorded)) {
    if (progress) *progress << "the mined rules were chosen on dev before: kept" << std::endl;
    result.mined_rules = c.choices.mined;
    return;
  }
  Model kept = load_model(run.model_path);
  const bool stale = !kept.mined_rules.empty();  // a best epoch's file (--keep best) may hold an earlier run's
  kept.mined_rules.clear();
  kept.mined_rule_weight = Model().mined_rule_weight;
  const ChoiceLimits limits = choice_limits(run, result.training_seconds);
  if (progress) *progress << "mining rules and ranking dev with them (at most " << format_duration(limits.seconds) << ")" << std::endl;
  const MinedRulesChoice choice = choose_mined_rules(kept, data, kCombineChoiceDevAtoms, progress, limits);
  if (choice.stopped) return stopped_choosing(result, progress);
  if (choice.kept || stale) save_model(kept, run.model_path);
  result.mined_rules = describe(choice);
  c.choices.mined_rules = true;
  c.choices.mined = result.mined_rules;
  c.choices.model_file = file_fingerprint(run.model_path);
  save_checkpoint(c, checkpoint);
}

// The L2 value the run at `model_path` trained with (its checkpoint's settings).
double trained_l2(const std::string& model_path) {
  const std::string saved = setting_value(load_checkpoint(checkpoint_path(model_path)).settings, "l2");
  if (saved.empty()) throw std::runtime_error(checkpoint_path(model_path) + ": no L2 among its settings");
  return std::strtod(saved.c_str(), nullptr);
}

// The run's options with the values `chooser` (a model trained on carved
// dev facts) chose: its L2 and combine rule, and no choice left to make.
struct ChosenOptions {
  ModelOptions model;
  TrainOptions train;
  RunOptions run;
};
ChosenOptions options_chosen(const ModelOptions& model_options, const TrainOptions& options, const RunOptions& run,
                             const std::string& chooser_path, const Model& chooser) {
  ChosenOptions chosen{model_options, options, run};
  chosen.train.l2 = trained_l2(chooser_path);
  chosen.model.prover.combine = chooser.prover.combine;
  chosen.run.l2_choices.clear();
  chosen.run.combine_from = CombineFrom::Given;
  chosen.run.mined_rules_on_dev = false;
  chosen.run.dev_from_train = false;
  return chosen;
}

// The proof search width the chooser chose, into the model at `model_path`
// (trained with the run's own k: the width is a ranking's, not training's).
void keep_width_like(const Model& chooser, const std::string& model_path) {
  Model model = load_model(model_path);
  if (model.prover.k_facts == chooser.prover.k_facts) return;
  model.prover.k_facts = chooser.prover.k_facts;
  save_model(model, model_path);
}

// The mined rules the chooser kept, mined again from every training fact,
// and their weight, into the model at `model_path`; how many, for the report.
std::size_t keep_mined_rules_like(const Model& chooser, const TrainingData& data, const std::string& model_path) {
  if (chooser.mined_rules.empty()) return 0;
  Model model = load_model(model_path);
  model.mined_rules = mine_rules_like(data.kb, chooser.mined_rules);
  model.mined_rule_weight = chooser.mined_rule_weight;
  save_model(model, model_path);
  return model.mined_rules.size();
}

RunResult train_with_choices(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                             const RunOptions& run, std::ostream* progress);

// Whether a run has left a checkpoint: its own, or one of its L2 candidates'.
bool has_checkpoint(const RunOptions& run) {
  bool found = std::ifstream(checkpoint_path(run.model_path)).good();
  for (double v : run.l2_choices) found = found || std::ifstream(checkpoint_path(l2_candidate_path(run.model_path, v))).good();
  return found;
}

// A run given no dev facts that carves them (carved_dev.h): the choices
// made by a run on the rest, at carved_choice_path, then the model trained
// on every fact with them. Both runs resume from their own checkpoints.
RunResult train_on_carved_dev(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                              const RunOptions& run, std::ostream* progress) {
  const TrainingData carved = carve_dev(data, options.seed);
  const std::string held = std::to_string(carved.dev.size()) + " of " + std::to_string(data.kb.facts.size());
  if (progress) *progress << "no dev facts: choosing on " << held << " training facts held out, then training on all" << std::endl;
  RunOptions choosing = run;
  choosing.model_path = carved_choice_path(run.model_path);
  if (!run.log_path.empty()) choosing.log_path = carved_choice_path(run.log_path);
  choosing.resume = run.resume && has_checkpoint(choosing);
  const RunResult choice = train_with_choices(carved, model_options, options, choosing, progress);
  if (!choice.finished) return choice;
  const Model chooser = load_model(choosing.model_path);
  ChosenOptions chosen = options_chosen(model_options, options, run, choosing.model_path, chooser);
  chosen.run.resume = run.resume && has_checkpoint(chosen.run);
  if (progress) *progress << "training on every fact with the values chosen" << std::endl;
  RunResult result = train_with_choices(data, chosen.model, chosen.train, chosen.run, progress);
  if (!result.finished) return result;
  keep_width_like(chooser, run.model_path);
  const std::size_t mined = keep_mined_rules_like(chooser, data, run.model_path);
  remove_run_files(choosing.model_path);
  result.combine_choice = choice.combine_choice;
  result.width_choice = choice.width_choice;
  result.l2_choice = choice.l2_choice;
  result.mined_rules = choice.mined_rules;
  result.dev_carved = held + " training facts (seed " + std::to_string(options.seed) + ") made the choices; the model " +
                      "trained on all of them with those values" +
                      (mined ? ", its " + std::to_string(mined) + " mined rules mined again from all of them" : "");
  return result;
}

// Training, then the mined rules' choice on dev (train.h).
RunResult train_with_choices(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                             const RunOptions& run, std::ostream* progress) {
  RunResult result = train_model(data, model_options, options, run, progress);
  if (result.finished && run.mined_rules_on_dev && can_choose_mined_rules(data))
    choose_kept_mined_rules(data, run, result, progress);
  return result;
}

// The candidates of a choice of templates, in order: the file's, then mined.
const char* const kTemplateCandidates[] = {"file", "mined"};

// Candidate `name`'s run: its own files (and its L2 candidates' within them).
RunOptions template_candidate_run(const RunOptions& run, const std::string& name) {
  RunOptions one = run;
  one.model_path = template_candidate_path(run.model_path, name);
  if (!run.log_path.empty()) one.log_path = template_candidate_path(run.log_path, name);
  one.resume = run.resume && has_checkpoint(one);
  return one;
}

// "N rules, SHAPE (dev ...)": what was mined.
std::string describe_mined(const TrainingData& mined) {
  return std::to_string(mined.kb.templates.size()) + " rules, " + mined.templates_note;
}

// What the report says of the choice: each candidate's dev metrics, why
// the one kept was kept, and the mined rules.
std::string describe_template_choice(const std::string& chosen, const TrainingData& data, const TrainingData& mined,
                                     const std::vector<std::pair<std::string, double>>& dev,
                                     const CandidatesOnDev& measured, bool decided_by_proofs) {
  std::string proofs;
  for (std::size_t i = 0; i < measured.candidates.size(); ++i)
    proofs += std::string(i ? ", " : "") + dev[i].first + " " + format_fixed(measured.candidates[i].proofs_mrr, 4);
  const std::string why = decided_by_proofs ? "the final models within noise: the better proofs kept"
                                            : "the final model clearly better kept";
  const RoundsDone& done = measured.done;
  return describe_dev_choice(chosen, dev_metric_name(data), done.atoms, dev) +
         rounds_cut_note(done.over_budget, done.stopped, done.atoms) + "; proofs alone: " + proofs + "; " + why +
         "; mined: " + describe_mined(mined);
}

// "the file's", or "mined from the training facts (N rules, SHAPE (...))".
std::string describe_candidate(const std::string& name, const TrainingData& mined) {
  return name == "mined" ? "mined from the training facts (" + describe_mined(mined) + ")" : "the file's";
}

// One run with the file's templates and one with mined templates, each with
// the other choices; then both final models ranked on the same dev atoms,
// within a budget of a share of their training, and the one
// template_candidate_kept picks kept (RunOptions::mined_templates_on_dev).
// A stop while they are ranked leaves the run unfinished (stopped_choosing).
RunResult train_choosing_templates(const TrainingData& data, const TrainingData& mined, const ModelOptions& model_options,
                                   const TrainOptions& options, const RunOptions& run, std::ostream* progress) {
  std::vector<RunResult> results;
  std::vector<std::string> suffixes, names, paths;
  std::vector<const TrainingData*> trained_on;
  double training_seconds = 0;
  for (const std::string name : kTemplateCandidates) {
    const TrainingData& candidate = name == "mined" ? mined : data;
    const RunOptions one = template_candidate_run(run, name);
    if (progress) *progress << "templates: " << describe_candidate(name, mined) << " (" << results.size() + 1 << " of 2)\n";
    results.push_back(train_with_choices(candidate, model_options, options, one, progress));
    if (!results.back().finished) return results.back();
    training_seconds += results.back().training_seconds;
    suffixes.push_back(template_candidate_path("", name));
    names.push_back(name);
    paths.push_back(one.model_path);
    trained_on.push_back(&candidate);
  }
  const ChoiceLimits limits = choice_limits(run, training_seconds);
  announce_choice(progress, "the templates", data, limits);
  const Model file_model = load_model(paths[0]), mined_model = load_model(paths[1]);
  const CandidatesOnDev measured =
      measure_candidates_on_dev({&file_model, &mined_model}, trained_on, true, limits, progress);
  if (measured.done.stopped) {
    stopped_choosing(results.back(), progress);
    return results.back();
  }
  std::vector<std::pair<std::string, double>> dev;  // each candidate's final dev metric
  for (std::size_t i = 0; i < names.size(); ++i) {
    dev.emplace_back(names[i], measured.candidates[i].final_mrr);
    if (progress)
      *progress << "templates " << names[i] << ": dev " << dev_metric_name(data) << " " << format_fixed(dev[i].second, 4)
                << " (proofs alone " << format_fixed(measured.candidates[i].proofs_mrr, 4) << ")" << std::endl;
  }
  bool decided_by_proofs = false;
  const std::size_t kept = template_candidate_kept(measured.candidates, &decided_by_proofs);
  keep_candidate(run, suffixes, kept);
  RunResult result = chosen_result(results, kept, run);
  result.templates_choice = describe_template_choice(dev[kept].first, data, mined, dev, measured, decided_by_proofs);
  return result;
}

// Whether the checkpoint at `path` holds a model whose templates were mined.
bool checkpoint_has_mined_templates(const std::string& path) {
  const Checkpoint c = load_checkpoint(path);
  return !c.model.kb.templates.empty() && !c.model.kb.templates.front().slot_starts.empty();
}

// Training with the choice of templates, if any (RunOptions::mined_templates_on_dev).
RunResult train_with_template_choice(const TrainingData& data, const ModelOptions& model_options,
                                     const TrainOptions& options, const RunOptions& run, std::ostream* progress) {
  const TrainingData mined = with_mined_templates(data);
  if (mined.kb.templates.empty()) {  // nothing to start from but the facts: no choice
    if (progress) *progress << "templates: no rule mined from the training facts; the file's alone" << std::endl;
    return train_with_choices(data, model_options, options, run, progress);
  }
  bool started = false;  // a choice under way: some candidate has its checkpoint
  for (const std::string name : kTemplateCandidates) started = started || has_checkpoint(template_candidate_run(run, name));
  if (!run.resume || started) return train_choosing_templates(data, mined, model_options, options, run, progress);
  // Resuming a finished choice continues the run it chose (mined templates
  // are never empty here, and a file's never start at a predicate).
  const std::string checkpoint = checkpoint_path(run.model_path);
  const bool chose_mined = std::ifstream(checkpoint) && checkpoint_has_mined_templates(checkpoint);
  return train_with_choices(chose_mined ? mined : data, model_options, options, run, progress);
}

}  // namespace

RunResult train(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                const RunOptions& run, std::ostream* progress) {
  check_options(run);
  if (carves_dev(data, model_options, run)) return train_on_carved_dev(data, model_options, options, run, progress);
  const bool no_dev = data.dev.empty() && data.dev_labelled.empty();
  if (progress && run.dev_from_train && no_dev && data.kb.facts.size() > kMaxFactsToCarveDev)
    *progress << "no dev facts, and too many training facts to hold some out and train three times (more than "
              << kMaxFactsToCarveDev << "): no choice is made on dev (--dev FILE makes them)" << std::endl;
  if (run.mined_templates_on_dev && can_choose_templates(data))
    return train_with_template_choice(data, model_options, options, run, progress);
  return train_with_choices(data, model_options, options, run, progress);
}

std::string template_candidate_path(const std::string& model_path, const std::string& templates) {
  return model_path + "." + templates + "-templates";
}

}  // namespace ntp
