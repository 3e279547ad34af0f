// ntp/train/training_run.cpp: a training run with dev metric, kept model,
// checkpoints, resumption, stopping and a log (see training_run.h).
#include "ntp/train/training_run.h"

#include "ntp/eval/evaluate.h"
#include "ntp/train/training_data.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ntp {

namespace {

// FNV-1a over the data's symbols, facts, templates and dev/test atoms: a
// resumed run must train on the same KB.
class Fingerprint {
 public:
  void add(const std::string& s) {
    for (unsigned char c : s) hash_ = (hash_ ^ c) * 1099511628211ull;
    hash_ = (hash_ ^ 0xff) * 1099511628211ull;  // a separator, so that "ab","c" differs from "a","bc"
  }
  void add(const Atom& a) {
    add(std::to_string(a.predicate));
    for (int c : a.args) add(std::to_string(c));
  }
  std::string hex() const {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash_));
    return buf;
  }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

std::string data_hash(const TrainingData& d) {
  Fingerprint f;
  for (const std::string& n : d.kb.predicates.names()) f.add(n);
  for (const std::string& n : d.kb.constants.names()) f.add(n);
  for (const Atom& a : d.kb.facts) f.add(a);
  for (const Template& t : d.kb.templates) f.add(std::to_string(t.copies) + " " + to_string(d.kb, t));
  f.add("dev");
  for (const Atom& a : d.dev) f.add(a);
  for (const LabelledAtom& a : d.dev_labelled) f.add(std::to_string(a.label));
  f.add("test");
  for (const Atom& a : d.test) f.add(a);
  return f.hex();
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);  // exact: a resumed run compares them as text
  return buf;
}

// name -> value of a settings text.
std::vector<std::pair<std::string, std::string>> settings_lines(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return out;
}

// Throws std::invalid_argument naming every setting that differs.
void check_same_settings(const std::string& now, const std::string& saved, const std::string& checkpoint) {
  std::string differences;
  const auto before = settings_lines(saved);
  for (const auto& [name, value] : settings_lines(now)) {
    std::string old = "(not set)";
    for (const auto& [n, v] : before)
      if (n == name) old = v;
    if (old == value) continue;
    if (!differences.empty()) differences += "; ";
    differences += name == "data" ? "the training data (--train, --templates, --dev, --test) differ"
                                  : "--" + name + " is " + value + " now but " + old + " in the checkpoint";
  }
  if (!differences.empty())
    throw std::invalid_argument("cannot resume from " + checkpoint + ": " + differences +
                                " (resume with the options the checkpoint was trained with, or train afresh without --resume)");
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// One JSON object per epoch, for plotting.
std::string log_line(const EpochReport& r, const std::string& metric, double dev) {
  std::string s = "{\"epoch\":" + std::to_string(r.epoch) + ",\"loss\":" + short_number(r.mean_loss) +
                  ",\"seconds\":" + short_number(r.seconds);
  if (!metric.empty()) s += ",\"dev_" + metric + "\":" + short_number(dev);
  if (r.recall_probes > 0) s += ",\"recall_at_1\":" + short_number(r.recall_at_1);
  return s + "}";
}

}  // namespace

const char* keep_name(Keep keep) { return keep == Keep::Last ? "last" : "best"; }

bool keep_from_name(const std::string& name, Keep* keep) {
  if (name != "best" && name != "last") return false;
  *keep = name == "last" ? Keep::Last : Keep::Best;
  return true;
}

std::string dev_metric_name(const TrainingData& data) {
  if (!data.dev_labelled.empty()) return "accuracy";
  return data.dev.empty() ? "" : "mrr";
}

double dev_metric(const Model& model, const TrainingData& data) {
  if (!data.dev_labelled.empty()) {
    std::vector<Atom> atoms;
    std::vector<int> labels;
    for (const LabelledAtom& l : data.dev_labelled) {
      atoms.push_back(l.atom);
      labels.push_back(l.label);
    }
    return evaluate_classification(model, atoms, labels, atoms, labels).dev_accuracy_per_relation;
  }
  if (data.dev.empty()) return -1;
  return evaluate_ranking(model, data.dev, filter_set(model, data.dev)).mean_ties.mrr;
}

std::string training_settings(const TrainingData& data, const ModelOptions& m, const TrainOptions& t, const RunOptions& r) {
  std::ostringstream s;
  s << "dim=" << m.dim << "\ndepth=" << m.prover.depth << "\nk=" << m.prover.k_facts << "\nk-rules=" << m.prover.k_rules
    << "\nindex=" << m.prover.index << "\ncomplex=" << m.prover.complex << "\ncombine=" << combine_name(m.prover.combine)
    << "\nseed=" << m.seed << "\nbatch=" << t.batch << "\nnegatives=" << t.negatives << "\nmask=" << training_mask_name(t.mask)
    << "\nlr=" << number(t.learning_rate) << "\nl2=" << number(t.l2) << "\nclip=" << number(t.clip)
    << "\noptimizer=" << t.optimizer << "\nrefresh=" << t.index.update_every << "\nrecall-every=" << t.recall_every
    << "\neval-every=" << r.eval_every << "\nkeep=" << keep_name(r.keep) << "\ndata=" << data_hash(data) << "\n";
  // Only when on: checkpoints from before these options still resume.
  if (m.attention) s << "attention=1\n";
  if (t.explore > 0) s << "explore=" << number(t.explore) << "\n";
  return s.str();
}

RunResult run_training(const TrainingData& data, const ModelOptions& model_options, const TrainOptions& options,
                       const RunOptions& run, std::ostream* progress) {
  if (run.model_path.empty()) throw std::invalid_argument("run_training: no model path");
  if (run.eval_every < 0) throw std::invalid_argument("eval-every must be >= 0, got " + std::to_string(run.eval_every));
  const std::string metric = run.eval_every > 0 ? dev_metric_name(data) : "";
  if (run.eval_every > 0 && metric.empty()) throw std::invalid_argument("a dev metric every N epochs needs dev facts (--dev)");
  const std::string settings = training_settings(data, model_options, options, run);
  RunResult result;
  result.checkpoint = checkpoint_path(run.model_path);
  result.metric = metric;

  Checkpoint c;
  if (run.resume) {
    if (!std::ifstream(result.checkpoint))
      throw std::runtime_error(result.checkpoint + ": no checkpoint to resume from (train without --resume to start)");
    c = load_checkpoint(result.checkpoint);
    check_same_settings(settings, c.settings, result.checkpoint);
    if (progress)
      *progress << "resuming from " << result.checkpoint << " after epoch " << c.state.epochs_done
                << (c.state.steps_done ? ", step " + std::to_string(c.state.steps_done) : std::string()) << "\n";
  } else {
    c.model = new_model(data, model_options);
    c.settings = settings;
  }
  // Fail now, not after hours of training, if the files cannot be written.
  for (const std::string& path : {run.model_path, result.checkpoint}) {
    const std::string probe = path + ".tmp";
    if (!std::ofstream(probe)) throw std::runtime_error(probe + ": cannot open for writing");
    std::remove(probe.c_str());
  }
  std::ofstream log;
  if (!run.log_path.empty()) {
    log.open(run.log_path, run.resume ? std::ios::app : std::ios::trunc);
    if (!log) throw std::runtime_error(run.log_path + ": cannot open the log for writing");
  }

  Model& model = c.model;
  auto on_epoch = [&](EpochReport& report) {
    const bool measured = !metric.empty() && report.epoch % run.eval_every == 0;
    double dev = -1;
    if (measured) {
      dev = dev_metric(model, data);
      if (c.best_epoch == 0 || dev > c.best_dev) {
        c.best_dev = dev;
        c.best_epoch = report.epoch;
        if (run.keep == Keep::Best) save_model(model, run.model_path);
      }
      char note[96];
      std::snprintf(note, sizeof note, "  dev %s %.4f (best %.4f, epoch %d)", metric.c_str(), dev, c.best_dev, c.best_epoch);
      report.note = note;
    }
    if (log.is_open()) log << log_line(report, measured ? metric : "", dev) << std::endl;
    save_checkpoint(c, result.checkpoint);
  };
  // c.state is updated by train() before each on_epoch, so the checkpoint written there is current.
  train(model, options, progress, on_epoch, &c.state, run.stop);
  if (c.state.stopped) {
    c.state.stopped = false;
    save_checkpoint(c, result.checkpoint);
  } else {
    result.finished = true;
    if (run.keep == Keep::Last || c.best_epoch == 0) save_model(model, run.model_path);
  }
  result.epochs_done = c.state.epochs_done;
  result.steps_done = c.state.steps_done;
  result.best_dev = c.best_dev;
  result.best_epoch = c.best_epoch;
  return result;
}

}  // namespace ntp
