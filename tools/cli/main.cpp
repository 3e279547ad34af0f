// tools/cli/main.cpp: the `ntp` command: train, eval, prove, answer, rules.
//
// Each subcommand parses its own options (cxxopts), does its work through the
// library's API (ntp/ntp.h), and prints the result; it reports errors as one line on stderr with exit code 1
// (2 for bad usage). Progress goes to stderr; results to stdout, and with
// --json a single JSON object is the last line of stdout.
#include "ntp/ntp.h"

#include <cxxopts.hpp>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

// Thrown for bad command-line use: printed with the subcommand's help hint.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* const kUsage =
    "usage: ntp <command> [options]\n"
    "\n"
    "commands:\n"
    "  train   learn embeddings and rules from facts and rule templates\n"
    "  eval    evaluate a model (countries AUC-PR, ranking MRR/HITS, classification accuracy)\n"
    "  prove   score an atom and show its best proofs (text, JSON or a Graphviz graph)\n"
    "  answer  the best bindings of a query's variables, e.g. \"locatedIn(palau, X)\"\n"
    "  rules   list the rules a model induced\n"
    "\n"
    "`ntp <command> --help` lists a command's options.\n";

cxxopts::ParseResult parse(cxxopts::Options& options, int argc, char** argv) {
  options.add_options()("h,help", "show this help");
  // cxxopts reads a one-letter option only as `-k`; our documented spelling
  // is `--k N` (and `--k=N`), so rewrite those before parsing.
  static std::vector<std::string> storage;
  static std::vector<char*> args;
  storage.assign(argv, argv + argc);
  for (std::string& a : storage)
    if (a.size() >= 3 && a.compare(0, 2, "--") == 0 && std::isalpha(static_cast<unsigned char>(a[2])) &&
        (a.size() == 3 || a[3] == '='))
      a = "-" + a.substr(2, 1) + (a.size() > 4 ? a.substr(4) : "");
  args.clear();
  for (std::string& a : storage) args.push_back(a.data());
  argc = static_cast<int>(args.size());
  argv = args.data();
  try {
    auto result = options.parse(argc, argv);
    if (result.count("help")) {
      std::cout << options.help() << std::endl;
      std::exit(0);
    }
    return result;
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(e.what());
  }
}

template <class T>
T get(const cxxopts::ParseResult& r, const std::string& name) {
  if (!r.count(name) && !r[name].has_default()) throw UsageError("missing required option --" + name);
  return r[name].as<T>();
}

// Rejects negative values of the integer options that have none.
void check_non_negative(const cxxopts::ParseResult& r, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (r.count(name) && r[name].as<int>() < 0)
      throw UsageError(std::string("--") + name + " must be >= 0, got " + std::to_string(r[name].as<int>()));
}

void set_threads(const cxxopts::ParseResult& r) {
  const int threads = r["threads"].as<int>();
  if (threads > 0) omp_set_num_threads(threads);
}

std::string json_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Raised by SIGINT or SIGTERM: training stops after its current step.
std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};

extern "C" void on_stop_signal(int signal) {
  stop_requested.store(true);
  stop_signal.store(signal);
  std::signal(signal, SIG_DFL);  // a second signal ends the program at once
}

// `arg` as a shell word: quoted unless it is plainly safe.
std::string shell_quote(const std::string& arg) {
  const bool safe = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_./=:,+@%", c) != nullptr;
  });
  if (safe) return arg;
  std::string s = "'";
  for (char c : arg) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return s + "'";
}

// A default as cxxopts wants it: text.
std::string text(double v) { return json_number(v); }
std::string text(bool v) { return v ? "true" : "false"; }

// `ntp train`'s options, in groups. The defaults are the library's
// (ModelOptions and TrainOptions, ntp/train/options.h): one recipe, chosen on
// the dev splits of every benchmark.
void add_train_file_options(cxxopts::Options& o) {
  o.add_options()
    ("train", "training facts (.nl or .tsv)", cxxopts::value<std::string>())
    ("templates", "rule templates (.nlt or .pl)", cxxopts::value<std::string>())
    ("dev", "dev facts: their symbols get embeddings; they filter rankings", cxxopts::value<std::string>())
    ("test", "test facts: as --dev", cxxopts::value<std::string>())
    ("model", "where to write the model", cxxopts::value<std::string>());
}

void add_model_options(cxxopts::Options& o) {
  const ntp::ModelOptions defaults;
  o.add_options()
    ("dim", "embedding dimension", cxxopts::value<int>()->default_value(std::to_string(defaults.dim)))
    ("depth", "maximum rule applications per proof", cxxopts::value<int>()->default_value(std::to_string(defaults.prover.depth)))
    ("k", "facts kept per or-step (0 = all: exhaustive NTP)", cxxopts::value<int>()->default_value(std::to_string(defaults.prover.k_facts)))
    ("k-rules", "rules kept per or-step (0 = all)", cxxopts::value<int>()->default_value(std::to_string(defaults.prover.k_rules)))
    ("index", "fact index: auto, table, brute, kdtree, hnsw (auto: table when the constants fit a C x C table, "
     "else hnsw)", cxxopts::value<std::string>()->default_value(defaults.prover.index))
    ("complex", "NTPλ: train ComplEx jointly on the same embeddings and join the two scores (see --combine); "
     "--complex=false trains the plain prover", cxxopts::value<bool>()->default_value(text(defaults.prover.complex))->implicit_value("true"))
    ("combine", "NTPλ's score: max or mean of the proof and ComplEx scores, or proof (the proof score alone: "
     "ComplEx only shapes the embeddings in training)",
     cxxopts::value<std::string>()->default_value(ntp::combine_name(defaults.prover.combine)))
    ("attention", "rule slots are softmax mixes of the KB's predicates (GNTP's attention), so rules cannot drift "
     "away from real relations; `ntp rules` reads them off the attention")
    ("seed", "random seed", cxxopts::value<unsigned long long>()->default_value(std::to_string(defaults.seed)));
}

void add_learning_options(cxxopts::Options& o) {
  const ntp::TrainOptions defaults;
  o.add_options()
    ("epochs", "passes over the training facts", cxxopts::value<int>()->default_value(std::to_string(defaults.epochs)))
    ("batch", "positive facts per step", cxxopts::value<int>()->default_value(std::to_string(defaults.batch)))
    ("lr", "learning rate", cxxopts::value<double>()->default_value(text(defaults.learning_rate)))
    ("l2", "L2 regularisation (each step, on the embeddings it touched)", cxxopts::value<double>()->default_value(text(defaults.l2)))
    ("clip", "element-wise gradient clip (0 = off)", cxxopts::value<double>()->default_value(text(defaults.clip)))
    ("optimizer", "adam, adagrad or sgd", cxxopts::value<std::string>()->default_value(defaults.optimizer))
    ("negatives", "corruptions per positive", cxxopts::value<int>()->default_value(std::to_string(defaults.negatives)))
    ("mask", "what a training fact's proofs may not use: fact (itself) or pair (every fact between "
             "its constants, e.g. its inverse; for KBs stored with inverses, such as WN11)",
     cxxopts::value<std::string>()->default_value(ntp::training_mask_name(defaults.mask)))
    ("explore", "exploration: score a goal in training by a soft max over its proof paths at this temperature, "
     "annealed to the hard max by the middle epoch, so that rules not yet winning get gradient (0 = off)",
     cxxopts::value<double>()->default_value(text(defaults.explore)))
    ("refresh", "steps between fact-index updates with the moved embeddings (0 = every step)",
     cxxopts::value<int>()->default_value(std::to_string(defaults.index.update_every)))
    ("recall-every", "steps between measurements of an approximate index's recall@1 against exact search "
     "(0 = never)", cxxopts::value<int>()->default_value(std::to_string(defaults.recall_every)));
}

void add_run_options(cxxopts::Options& o) {
  const ntp::RunOptions defaults;
  o.add_options()
    ("eval-every", "measure the dev metric after every N-th epoch (0 = never; needs --dev): filtered MRR, or "
     "accuracy for a labelled dev file", cxxopts::value<int>()->default_value(std::to_string(defaults.eval_every)))
    ("keep", "which model --model gets when the dev metric is measured: best (the default: the measurement is "
     "there to choose with, and an overfitting run then does not end on a worse model) or last",
     cxxopts::value<std::string>()->default_value(ntp::keep_name(defaults.keep)))
    ("resume", "continue from the checkpoint MODEL.ckpt (written after every epoch and on Ctrl-C) with the same "
     "options; --epochs may grow")
    ("log", "write one JSON object per epoch to this file (loss, seconds, dev metric, recall; appended to on "
     "--resume)",
     cxxopts::value<std::string>())
    ("profile", "print where each epoch's time goes (proof search, retrieval, index maintenance, forward, "
     "backward, optimiser)")
    ("threads", "OpenMP threads (0 = all cores)", cxxopts::value<int>()->default_value("0"))
    ("quiet", "no progress output");
}

// --dim, --depth, ... as ModelOptions; names that are not values are bad usage.
ntp::ModelOptions train_model_options(const cxxopts::ParseResult& r) {
  ntp::ModelOptions m;
  m.dim = r["dim"].as<int>();
  m.seed = r["seed"].as<unsigned long long>();
  m.prover.depth = r["depth"].as<int>();
  m.prover.k_facts = r["k"].as<int>();
  m.prover.k_rules = r["k-rules"].as<int>();
  m.prover.index = r["index"].as<std::string>();
  m.prover.complex = r["complex"].as<bool>();
  const std::string combine = r["combine"].as<std::string>();
  if (!ntp::combine_from_name(combine, &m.prover.combine))
    throw UsageError("--combine is max, mean or proof, got '" + combine + "'");
  if (r.count("combine") && !m.prover.complex) throw UsageError("--combine needs --complex (it joins NTP and ComplEx)");
  m.attention = r.count("attention") > 0;
  return m;
}

ntp::TrainOptions train_learning_options(const cxxopts::ParseResult& r) {
  ntp::TrainOptions t;
  t.epochs = r["epochs"].as<int>();
  t.batch = r["batch"].as<int>();
  t.negatives = r["negatives"].as<int>();
  if (!ntp::training_mask_from_name(r["mask"].as<std::string>(), &t.mask))
    throw UsageError("--mask is fact or pair, got '" + r["mask"].as<std::string>() + "'");
  t.learning_rate = r["lr"].as<double>();
  t.l2 = r["l2"].as<double>();
  t.clip = r["clip"].as<double>();
  t.optimizer = r["optimizer"].as<std::string>();
  t.explore = r["explore"].as<double>();
  t.seed = r["seed"].as<unsigned long long>();
  t.index.update_every = r["refresh"].as<int>();
  t.recall_every = r["recall-every"].as<int>();
  t.profile = r.count("profile") > 0;
  t.progress_inline = isatty(STDERR_FILENO) != 0;
  return t;
}

ntp::RunOptions train_run_options(const cxxopts::ParseResult& r) {
  ntp::RunOptions run;
  if (!ntp::keep_from_name(r["keep"].as<std::string>(), &run.keep))
    throw UsageError("--keep is best or last, got '" + r["keep"].as<std::string>() + "'");
  run.eval_every = r["eval-every"].as<int>();
  if (run.eval_every > 0 && !r.count("dev")) throw UsageError("--eval-every needs --dev (the facts to measure on)");
  run.model_path = get<std::string>(r, "model");
  run.resume = r.count("resume") > 0;
  run.stop = &stop_requested;
  if (r.count("log")) run.log_path = r["log"].as<std::string>();
  return run;
}

// The library's checks of the values (ranges, the fact index kind, an even
// dimension for ComplEx), reported as bad usage before any data is read.
void check_train_options(const ntp::ModelOptions& m, const ntp::TrainOptions& t, const ntp::RunOptions& run) {
  try {
    ntp::check_options(m);
    ntp::check_options(t);
    ntp::check_options(run);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

ntp::TrainingData read_train_files(const cxxopts::ParseResult& r) {
  auto optional = [&r](const char* name) { return r.count(name) ? r[name].as<std::string>() : std::string(); };
  return ntp::read_training_data(get<std::string>(r, "train"), optional("templates"), optional("dev"), optional("test"));
}

void print_training_summary(const ntp::KnowledgeBase& kb, const ntp::ModelOptions& m) {
  long long rules = 0;
  for (const ntp::Template& tpl : kb.templates) rules += tpl.copies;
  std::cerr << "training on " << kb.facts.size() << " facts, " << kb.predicates.size() << " predicates, "
            << kb.constants.size() << " constants, " << rules << " rules; dim " << m.dim << ", depth " << m.prover.depth
            << ", k " << m.prover.k_facts << "\n";
}

// Trains; Ctrl-C or a TERM signal asks the loop to stop after its current
// step, and a second one ends the program at once (the default action, restored).
ntp::RunResult train_until_done_or_stopped(const ntp::TrainingData& data, const ntp::ModelOptions& m,
                                           const ntp::TrainOptions& t, const ntp::RunOptions& run, bool quiet) {
  stop_requested.store(false);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const ntp::RunResult result = ntp::train(data, m, t, run, quiet ? nullptr : &std::cerr);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return result;
}

// Where the run ended, and for a stopped one the command that resumes it.
int report_training(const ntp::RunResult& result, const ntp::RunOptions& run, int argc, char** argv) {
  if (!result.finished) {
    std::cerr << "stopped after epoch " << result.epochs_done;
    if (result.steps_done) std::cerr << " and " << result.steps_done << " steps of epoch " << result.epochs_done + 1;
    std::cerr << "; checkpoint written to " << result.checkpoint << "\nresume with: ntp train";
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) != "--resume") std::cerr << " " << shell_quote(argv[i]);
    std::cerr << " --resume\n";
    return 128 + stop_signal.load();
  }
  if (result.best_epoch > 0)
    std::fprintf(stderr, "best dev %s %.4f after epoch %d\n", result.metric.c_str(), result.best_dev, result.best_epoch);
  std::cerr << "model written to " << run.model_path
            << (result.best_epoch > 0 && run.keep == ntp::Keep::Best ? " (the best on dev)" : "") << "\n";
  return 0;
}

int cmd_train(int argc, char** argv) {
  cxxopts::Options o("ntp train", "Train a neural theorem prover on facts and rule templates.");
  add_train_file_options(o);
  add_model_options(o);
  add_learning_options(o);
  add_run_options(o);
  const auto r = parse(o, argc, argv);
  check_non_negative(r, {"threads"});
  const ntp::ModelOptions m = train_model_options(r);
  const ntp::TrainOptions t = train_learning_options(r);
  const ntp::RunOptions run = train_run_options(r);
  check_train_options(m, t, run);
  set_threads(r);
  const ntp::TrainingData data = read_train_files(r);
  print_training_summary(data.kb, m);
  const ntp::RunResult result = train_until_done_or_stopped(data, m, t, run, r.count("quiet") > 0);
  return report_training(result, run, argc, argv);
}

// "mrr":…,"hits@1":…,"hits@3":…,"hits@10":… (JSON object members).
std::string ranking_fields(const ntp::RankingMetrics& m) {
  return "\"mrr\":" + json_number(m.mrr) + ",\"hits@1\":" + json_number(m.hits1) + ",\"hits@3\":" +
         json_number(m.hits3) + ",\"hits@10\":" + json_number(m.hits10);
}

// The --score option of `ntp eval`.
ntp::ScoreSource score_source(const std::string& name, const ntp::Model& model) {
  if (name == "model") return ntp::ScoreSource::Model;
  if (name == "proof") return ntp::ScoreSource::ProofOnly;
  const std::map<std::string, ntp::ScoreSource> needs_complex = {
      {"complex", ntp::ScoreSource::ComplexOnly}, {"max", ntp::ScoreSource::MaxOfBoth}, {"mean", ntp::ScoreSource::MeanOfBoth}};
  const auto it = needs_complex.find(name);
  if (it == needs_complex.end()) throw UsageError("--score is model, proof, complex, max or mean, got '" + name + "'");
  if (!model.prover.complex) throw UsageError("--score " + name + ": the model was trained without --complex");
  return it->second;
}

// What stdout says when `ntp eval` does not score with the model's own rule
// ("" when it does).
std::string score_source_note(ntp::ScoreSource source, const ntp::Model& model) {
  const std::optional<ntp::Combine> used = ntp::scoring_rule(model, source);
  const ntp::Combine own = *ntp::scoring_rule(model, ntp::ScoreSource::Model);
  if (used == own) return "";
  const std::string what = !used                         ? "the ComplEx part only"
                           : *used == ntp::Combine::Proof ? "the proofs only"
                                                          : ntp::combine_name(*used) + std::string("(proof, ComplEx)");
  return "scoring with " + what + ", not the model's " + (own == ntp::Combine::Proof ? "proof score" : ntp::combine_name(own));
}

int cmd_eval(int argc, char** argv) {
  cxxopts::Options o("ntp eval", "Evaluate a model with one of the NTP protocols.");
  o.add_options()
    ("model", "model file", cxxopts::value<std::string>())
    ("protocol", "countries, ranking or classification", cxxopts::value<std::string>())
    ("test", "countries: test countries, one per line; ranking: facts; classification: labelled TSV",
     cxxopts::value<std::string>())
    ("dev", "classification: labelled TSV to choose thresholds on", cxxopts::value<std::string>())
    ("regions", "countries: the regions, one per line", cxxopts::value<std::string>())
    ("truth", "countries: facts giving each test country's region", cxxopts::value<std::string>())
    ("filter", "ranking: more files of true facts to filter (default: every file the model saw)",
     cxxopts::value<std::vector<std::string>>())
    ("k", "override the facts kept per or-step", cxxopts::value<int>())
    ("index", "override the fact index (auto, table, brute, kdtree, hnsw)", cxxopts::value<std::string>()->default_value(""))
    ("score", "model (the model's own score), proof (proofs only), complex (ComplEx only), max or mean (of "
     "proof and ComplEx); the last three need an NTPλ model (--complex)", cxxopts::value<std::string>()->default_value("model"))
    ("tie-break", "ranking and countries: order atoms whose scores are exactly equal by their proof support "
     "(the sum of their proof paths' scores): support, or none (ties at the mean rank)",
     cxxopts::value<std::string>()->default_value("support"))
    ("threads", "OpenMP threads (0 = all cores)", cxxopts::value<int>()->default_value("0"))
    ("json", "print the metrics as one JSON object on the last line");
  const auto r = parse(o, argc, argv);
  check_non_negative(r, {"k", "threads"});
  const std::string tie_break = r["tie-break"].as<std::string>();
  if (tie_break != "support" && tie_break != "none")
    throw UsageError("--tie-break is support or none, got '" + tie_break + "'");
  set_threads(r);
  ntp::Model model = ntp::load_model(get<std::string>(r, "model"));
  if (r.count("k")) model.prover.k_facts = r["k"].as<int>();
  ntp::ScoreOptions scoring;
  scoring.index = r["index"].as<std::string>();
  scoring.source = score_source(r["score"].as<std::string>(), model);
  scoring.tie_break = tie_break == "support";
  const std::string protocol = get<std::string>(r, "protocol");
  const std::string test = get<std::string>(r, "test");
  std::string json;
  if (const std::string note = score_source_note(scoring.source, model); !note.empty()) std::cout << note << "\n";

  if (protocol == "countries") {
    const std::vector<ntp::Atom> truth = ntp::read_truth(get<std::string>(r, "truth"), model);
    const auto res = ntp::evaluate_countries(model, ntp::read_names(test), ntp::read_names(get<std::string>(r, "regions")),
                                             truth, scoring);
    std::cout << "AUC-PR " << 100 * res.auc_pr << " over " << res.scored << " atoms (" << res.positives << " true)\n";
    json = "{\"auc_pr\":" + json_number(res.auc_pr) + "}";
  } else if (protocol == "ranking") {
    const auto atoms = ntp::read_facts(test, model.kb, ntp::NewSymbols::Refuse);
    const std::vector<std::string> more =
        r.count("filter") ? r["filter"].as<std::vector<std::string>>() : std::vector<std::string>{};
    const auto known = ntp::filter_set(model, atoms, more);
    const auto result = ntp::evaluate_ranking(model, atoms, known, scoring);
    const ntp::RankingMetrics& m = result.mean_ties;
    const ntp::RankingMetrics& o = result.optimistic_ties;
    std::printf("MRR %.4f  HITS@1 %.4f  HITS@3 %.4f  HITS@10 %.4f  (%d ranks, ties by mean rank)\n", m.mrr, m.hits1,
                m.hits3, m.hits10, m.count);
    std::printf("MRR %.4f  HITS@1 %.4f  HITS@3 %.4f  HITS@10 %.4f  (ties optimistic, as the reference code)\n",
                o.mrr, o.hits1, o.hits3, o.hits10);
    std::printf("tied ranks: %d of %d (%d on the score alone%s)\n", result.tied_ranks, m.count,
                result.tied_on_score_alone, scoring.tie_break ? ", before the tie-break by proof support" : "");
    // {"mrr":…,"hits@1":…,"hits@3":…,"hits@10":…,"optimistic":{the same four},"tied_ranks":…,"tied_on_score":…}
    json = "{" + ranking_fields(m) + ",\"optimistic\":{" + ranking_fields(o) + "},\"tied_ranks\":" +
           std::to_string(result.tied_ranks) + ",\"tied_on_score\":" + std::to_string(result.tied_on_score_alone) + "}";
  } else if (protocol == "classification") {
    const auto dev = ntp::read_labelled_tsv(get<std::string>(r, "dev"), model.kb, ntp::NewSymbols::Refuse);
    const auto tst = ntp::read_labelled_tsv(test, model.kb, ntp::NewSymbols::Refuse);
    std::vector<ntp::Atom> dev_atoms, test_atoms;
    std::vector<int> dev_labels, test_labels;
    for (const auto& l : dev) { dev_atoms.push_back(l.atom); dev_labels.push_back(l.label); }
    for (const auto& l : tst) { test_atoms.push_back(l.atom); test_labels.push_back(l.label); }
    const auto c = ntp::evaluate_classification(model, dev_atoms, dev_labels, test_atoms, test_labels, scoring);
    std::printf("accuracy %.4f (per-relation thresholds; dev %.4f), %.4f (global threshold; dev %.4f)\n",
                c.accuracy_per_relation, c.dev_accuracy_per_relation, c.accuracy_global, c.dev_accuracy_global);
    json = "{\"accuracy\":" + json_number(c.accuracy_per_relation) + ",\"accuracy_global\":" +
           json_number(c.accuracy_global) + ",\"dev_accuracy\":" + json_number(c.dev_accuracy_per_relation) + "}";
  } else {
    throw UsageError("unknown protocol '" + protocol + "' (expected countries, ranking or classification)");
  }
  if (r.count("json")) std::cout << json << std::endl;
  return 0;
}

// One step of a proof as a text line: the goal as asked, what proved it,
// what it bound and its unification score.
void print_step(const ntp::Step& step) {
  std::string by = step.by_rule ? "rule  " + step.used : "fact  " + step.used;
  if (step.by_rule) {
    char confidence[32];
    std::snprintf(confidence, sizeof confidence, ", confidence %.3f", step.confidence);
    by += "  [~ " + step.reading + confidence + "]";
  }
  std::string bound;
  for (const ntp::Binding& b : step.substitution) bound += (bound.empty() ? "  {" : ", ") + b.variable + "/" + b.value;
  if (!bound.empty()) bound += "}";
  std::printf("  %*s%s  <-  %s%s   (unification %.4f)\n", 2 * step.depth, "", step.goal.c_str(), by.c_str(),
              bound.c_str(), step.score);
}

// The search settings a command may override (--k, --index).
ntp::SearchOptions search_options(const cxxopts::ParseResult& r) {
  ntp::SearchOptions s;
  if (r.count("k")) s.k = r["k"].as<int>();
  s.index = r["index"].as<std::string>();
  return s;
}

int cmd_prove(int argc, char** argv) {
  cxxopts::Options o("ntp prove", "Score a query atom and show its best proofs.");
  o.add_options()
    ("model", "model file", cxxopts::value<std::string>())
    ("query", "the atom, e.g. \"locatedIn(palau, oceania)\"", cxxopts::value<std::string>())
    ("top", "proofs to show", cxxopts::value<int>()->default_value("3"))
    ("format", "text, json (one object) or dot (a Graphviz graph of the proof tree; render with "
     "`dot -Tpng`)", cxxopts::value<std::string>()->default_value("text"))
    ("k", "override the facts kept per or-step", cxxopts::value<int>())
    ("index", "override the fact index (auto, table, brute, kdtree, hnsw)", cxxopts::value<std::string>()->default_value(""));
  o.parse_positional({"query"});
  o.positional_help("\"pred(a, b)\"");
  const auto r = parse(o, argc, argv);
  check_non_negative(r, {"k"});
  const std::string format = r["format"].as<std::string>();
  if (format != "text" && format != "json" && format != "dot")
    throw UsageError("--format is text, json or dot, got '" + format + "'");
  const ntp::Reasoner reasoner = ntp::Reasoner::load(get<std::string>(r, "model"), search_options(r));
  const ntp::Model& model = reasoner.model();
  const ntp::Explanation e = reasoner.prove(get<std::string>(r, "query"), std::max(0, r["top"].as<int>()));
  if (format == "json") {
    std::cout << ntp::to_json(e) << std::endl;
    return 0;
  }
  if (format == "dot") {
    std::cout << ntp::to_dot(e);
    return 0;
  }
  std::printf("%s  score %.4f  (%zu proofs searched)\n", e.atom.c_str(), e.proof_score, e.proofs_searched);
  if (model.prover.complex) {
    if (model.prover.combine == ntp::Combine::Proof)
      std::printf("ComplEx score %.4f (trained alongside; the model scores with its proofs)\n", e.complex_score);
    else
      std::printf("ComplEx score %.4f; NTPλ score %s(proof, ComplEx) = %.4f\n", e.complex_score,
                  ntp::combine_name(model.prover.combine), e.score);
  }
  for (std::size_t n = 0; n < e.proofs.size(); ++n) {
    std::printf("proof %zu  score %.4f\n", n + 1, e.proofs[n].score);
    for (const ntp::Step& step : e.proofs[n].steps) print_step(step);
  }
  return 0;
}

int cmd_answer(int argc, char** argv) {
  cxxopts::Options o("ntp answer", "Rank the bindings of a query's variables and show the best proof of each.");
  o.add_options()
    ("model", "model file", cxxopts::value<std::string>())
    ("query", "an atom with variables (upper case), e.g. \"locatedIn(palau, X)\"", cxxopts::value<std::string>())
    ("top", "answers to show", cxxopts::value<int>()->default_value("10"))
    ("json", "print the answers as one JSON object")
    ("k", "override the facts kept per or-step", cxxopts::value<int>())
    ("index", "override the fact index (auto, table, brute, kdtree, hnsw)", cxxopts::value<std::string>()->default_value(""))
    ("threads", "OpenMP threads (0 = all cores)", cxxopts::value<int>()->default_value("0"));
  o.parse_positional({"query"});
  o.positional_help("\"pred(a, X)\"");
  const auto r = parse(o, argc, argv);
  check_non_negative(r, {"k", "top", "threads"});
  set_threads(r);
  const ntp::Reasoner reasoner = ntp::Reasoner::load(get<std::string>(r, "model"), search_options(r));
  const std::string query = get<std::string>(r, "query");
  const std::vector<ntp::Answer> answers = reasoner.answer(query, r["top"].as<int>());
  if (r.count("json")) {
    std::cout << ntp::to_json(query, answers) << std::endl;
    return 0;
  }
  for (std::size_t n = 0; n < answers.size(); ++n) {
    const ntp::Answer& a = answers[n];
    std::string bound;
    for (const ntp::Binding& b : a.bindings) bound += (bound.empty() ? "" : ", ") + b.variable + " = " + b.value;
    std::printf("%2zu. %s  score %.4f  %s%s\n", n + 1, a.atom.c_str(), a.score, bound.c_str(), a.known ? "  (a known fact)" : "");
    for (const ntp::Step& step : a.best_proof.steps) print_step(step);
  }
  return 0;
}

int cmd_rules(int argc, char** argv) {
  cxxopts::Options o("ntp rules", "List induced rules, highest confidence first.");
  o.add_options()
    ("model", "model file", cxxopts::value<std::string>())
    ("min-confidence", "smallest confidence shown", cxxopts::value<double>()->default_value("0.5"));
  const auto r = parse(o, argc, argv);
  const auto rules = ntp::Reasoner::load(get<std::string>(r, "model")).rules(r["min-confidence"].as<double>());
  for (const auto& rule : rules) std::printf("%.3f  %s\n", rule.confidence, rule.text.c_str());
  if (rules.empty()) std::printf("no rule with confidence >= %g\n", r["min-confidence"].as<double>());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "train") return cmd_train(argc - 1, argv + 1);
    if (command == "eval") return cmd_eval(argc - 1, argv + 1);
    if (command == "prove") return cmd_prove(argc - 1, argv + 1);
    if (command == "answer") return cmd_answer(argc - 1, argv + 1);
    if (command == "rules") return cmd_rules(argc - 1, argv + 1);
    std::cerr << "ntp: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "ntp " << command << ": " << e.what() << " (see `ntp " << command << " --help`)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ntp " << command << ": " << e.what() << "\n";
    return 1;
  }
}
