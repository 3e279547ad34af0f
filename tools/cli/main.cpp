// tools/cli/main.cpp: the `ntp` command: train, eval, prove, answer, rules.
//
// Each subcommand parses its own options (cxxopts), does its work through the
// library's API (ntp/ntp.h), and prints the result; it reports errors as one line on stderr with exit code 1
// (2 for bad usage). Progress goes to stderr; results to stdout, and with
// --json a single JSON object is the last line of stdout.
#include "ntp/ntp.h"
#include "process_group.h"
#include "rank_files.h"

#include <cxxopts.hpp>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
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
    "  mine    count the rules the training facts support (AMIE's measures), as a file `train` can start from\n"
    "\n"
    "`ntp <command> --help` lists a command's options; `ntp --version` says which build this is.\n"
    "A build with MPI (-DNTP_MPI=ON) shares `train` and `eval --protocol ranking` between processes:\n"
    "`mpirun -np R ntp train ...` (docs/USAGE.md, \"Several processes\").\n";

// Parses a command's options; --help prints them by group in `group_order`
// (cxxopts would sort the groups by name), the bare options first.
cxxopts::ParseResult parse(cxxopts::Options& options, int argc, char** argv,
                           std::vector<std::string> group_order = {}) {
  options.add_options()("h,help", "show this help");
  if (!group_order.empty()) group_order.insert(group_order.begin(), "");
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
      std::cout << options.help(group_order) << std::endl;
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

// Runs a library call whose std::invalid_argument means a bad option value,
// so that it is reported as bad usage (exit code 2, with the help hint).
template <class Call>
auto as_usage_error(Call call) -> decltype(call()) {
  try {
    return call();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// --threads; 0 (all cores) shares this machine's cores between the
// `processes_here` of a group (`mpirun -np R`) that run on it.
void set_threads(const cxxopts::ParseResult& r, int processes_here = 1) {
  const int threads = r["threads"].as<int>();
  if (threads > 0) omp_set_num_threads(threads);
  else if (processes_here > 1) omp_set_num_threads(std::max(1, omp_get_num_procs() / processes_here));
}

// This process's place in the group (`mpirun -np R`), for the library.
ntp::ProcessShare share_of(const ProcessGroup& group) {
  ntp::ProcessShare share;
  share.index = group.rank();
  share.count = group.size();
  if (group.size() > 1)
    share.all_gather = [&group](const ntp::Bytes& mine) { return group.all_gather(mine); };
  return share;
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

// `ntp train`'s options, in groups: the files, the settings of the run, the
// process. The settings' defaults are the library's (ModelOptions and
// TrainOptions, ntp/train/options.h): one recipe, chosen on the dev splits of
// every benchmark.
void add_train_file_options(cxxopts::Options& o) {
  o.add_options("Files")
    ("train", "training facts (.nl or .tsv)", cxxopts::value<std::string>())
    ("templates", "rule templates (.nlt or .pl), a mined rules file (.tsv), or 'mined': rules mined from the "
                  "training facts, 10 a relation, the shape chosen on dev", cxxopts::value<std::string>())
    ("dev", "dev facts: their symbols get embeddings; they filter rankings", cxxopts::value<std::string>())
    ("test", "test facts: as --dev", cxxopts::value<std::string>())
    ("model", "where to write the model", cxxopts::value<std::string>());
}

// `ntp train`'s settings, from the library's table (ntp/train/option_table.h)
// with its defaults: a switch is turned off as `--complex=false`, a flag is given bare.
void add_setting_options(cxxopts::Options& o) {
  const ntp::TrainSettings defaults;
  for (ntp::OptionGroup group : ntp::option_groups()) {
    auto add = o.add_options(ntp::option_group_title(group));
    for (const ntp::TrainOption& s : ntp::train_option_table()) {
      if (s.group != group) continue;
      const std::string value = s.get(defaults);
      if (s.kind == ntp::OptionKind::Flag)
        add(s.name, s.help);
      else if (s.kind == ntp::OptionKind::Switch)
        add(s.name, s.help, cxxopts::value<bool>()->default_value(value)->implicit_value("true"));
      else if (value.empty())
        add(s.name, s.help, cxxopts::value<std::string>());
      else
        add(s.name, s.help, cxxopts::value<std::string>()->default_value(value));
    }
  }
}

void add_process_options(cxxopts::Options& o) {
  o.add_options("Process")
    ("threads", "OpenMP threads (0 = all cores)", cxxopts::value<int>()->default_value("0"))
    ("quiet", "no progress output");
}

// The settings given on the command line, checked by the library (ranges,
// names, the fact index kind, an even dimension for ComplEx, options that need
// others), reported as bad usage before any data is read.
ntp::TrainSettings train_settings(const cxxopts::ParseResult& r) {
  ntp::TrainSettings s;
  s.run.model_path = get<std::string>(r, "model");
  std::vector<ntp::OptionText> given;
  for (const ntp::TrainOption& option : ntp::train_option_table()) {
    if (!r.count(option.name)) continue;
    if (option.kind == ntp::OptionKind::Flag)
      given.push_back({option.name, "true"});
    else if (option.kind == ntp::OptionKind::Switch)
      given.push_back({option.name, r[option.name].as<bool>() ? "true" : "false"});
    else
      given.push_back({option.name, r[option.name].as<std::string>()});
  }
  as_usage_error([&] {
    ntp::apply_train_options(s, given, r.count("dev") > 0, ntp::OptionSpelling::CommandLine);
    return 0;
  });
  s.train.progress_inline = isatty(STDERR_FILENO) != 0;
  s.run.stop = &stop_requested;
  return s;
}

ntp::TrainingData read_train_files(const cxxopts::ParseResult& r) {
  auto optional = [&r](const char* name) { return r.count(name) ? r[name].as<std::string>() : std::string(); };
  return ntp::read_training_data(get<std::string>(r, "train"), optional("templates"), optional("dev"), optional("test"));
}

// What is trained, and with --profile which build trains it (the figures
// that follow depend on it).
void print_training_summary(const ntp::TrainingData& data, const ntp::ModelOptions& m, const ntp::TrainOptions& t) {
  if (t.profile) std::cerr << ntp::build_line() << "\n";
  const ntp::KnowledgeBase& kb = data.kb;
  if (!data.templates_note.empty() && kb.templates.empty())
    std::cerr << "templates mined from the training facts: none (no rule has the support); the model proves from the facts alone\n";
  else if (!data.templates_note.empty())
    std::cerr << "templates mined from the training facts: " << kb.templates.size() << " rules, "
              << data.templates_note << "; a goal tries the " << ntp::rules_tried_per_goal(data, m.prover.k_rules)
              << " nearest\n";
  long long rules = 0;
  for (const ntp::Template& tpl : kb.templates) rules += tpl.copies;
  std::cerr << "training on " << kb.facts.size() << " facts, " << kb.predicates.size() << " predicates, "
            << kb.constants.size() << " constants, " << rules << " rules; dim " << m.dim << ", depth " << m.prover.depth
            << ", k " << m.prover.k_facts << "\n";
}

// Trains; Ctrl-C, a TERM or a USR1 signal asks the loop to stop after its
// current step, and a second one ends the program at once (the default
// action, restored). `mpirun` forwards USR1 to every process of a group; a
// TERM or Ctrl-C given to it kills them a second later.
ntp::RunResult train_until_done_or_stopped(const ntp::TrainingData& data, const ntp::ModelOptions& m,
                                           const ntp::TrainOptions& t, const ntp::RunOptions& run, bool quiet) {
  stop_requested.store(false);
  for (int sig : {SIGINT, SIGTERM, SIGUSR1}) std::signal(sig, on_stop_signal);
  const ntp::RunResult result = ntp::train(data, m, t, run, quiet ? nullptr : &std::cerr);
  for (int sig : {SIGINT, SIGTERM, SIGUSR1}) std::signal(sig, SIG_DFL);
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
  if (!result.width_choice.empty()) std::cerr << "proof search width chosen on dev: " << result.width_choice << "\n";
  if (!result.combine_choice.empty()) std::cerr << "combine rule chosen on dev: " << result.combine_choice << "\n";
  if (!result.l2_choice.empty()) std::cerr << "L2 chosen on dev: " << result.l2_choice << "\n";
  if (!result.templates_choice.empty()) std::cerr << "templates chosen on dev: " << result.templates_choice << "\n";
  if (!result.mined_rules.empty()) std::cerr << "mined rules, on dev: " << result.mined_rules << "\n";
  if (!result.dev_carved.empty()) std::cerr << "dev held out of the training facts: " << result.dev_carved << "\n";
  std::cerr << "model written to " << run.model_path
            << (result.best_epoch > 0 && run.keep == ntp::Keep::Best ? " (the best on dev)" : "") << "\n";
  return 0;
}

int cmd_train(int argc, char** argv, const ProcessGroup& group) {
  cxxopts::Options o("ntp train",
                     "Train a neural theorem prover on facts and rule templates (or a mined rules file).\n\n"
                     "Most runs need only --train, --templates and --model, and --dev and --test so that\n"
                     "L2, the combine rule, the mined rules beside the model and whether the prover\n"
                     "starts from your templates or from rules mined from the facts are chosen on dev;\n"
                     "the settings most often changed are --dim, --epochs and --seed. docs/USAGE.md\n"
                     "says when to change the others.\n");
  add_train_file_options(o);
  add_setting_options(o);
  add_process_options(o);
  std::vector<std::string> groups{"Files"};
  for (ntp::OptionGroup group : ntp::option_groups()) groups.push_back(ntp::option_group_title(group));
  groups.push_back("Process");
  const auto r = parse(o, argc, argv, groups);
  check_non_negative(r, {"threads"});
  ntp::TrainSettings s = train_settings(r);
  set_threads(r, group.size_on_this_machine());
  s.run.share = share_of(group);  // several: each proves its share of every step (ntp/train/shared_gradient.h)
  const bool speaks = group.rank() == 0;
  const RankFiles files(group, s.run);
  const ntp::TrainingData data = read_train_files(r);
  if (speaks) print_training_summary(data, s.model, s.train);
  const bool quiet = r.count("quiet") > 0 || !speaks;
  const ntp::RunResult result = train_until_done_or_stopped(data, s.model, s.train, s.run, quiet);
  return speaks ? report_training(result, s.run, argc, argv) : 0;
}

// The options of the search settings a command may override.
void add_search_options(cxxopts::Options& o) {
  o.add_options("Proof search")
    ("k", "override the facts kept per or-step", cxxopts::value<int>())
    ("index", std::string("override the fact index (") + ntp::fact_index_kinds() + ")",
     cxxopts::value<std::string>()->default_value(""));
}

// The search settings a command may override (--k, --index).
ntp::SearchOptions search_options(const cxxopts::ParseResult& r) {
  ntp::SearchOptions s;
  if (r.count("k")) s.k = r["k"].as<int>();
  s.index = r["index"].as<std::string>();
  return s;
}

// The --model, searched with the --k and --index given.
ntp::Reasoner load_reasoner(const cxxopts::ParseResult& r) {
  return ntp::Reasoner::load(get<std::string>(r, "model"), search_options(r));
}

// A progress line on stderr for long work counted in units: rewritten in
// place on a terminal, a new line every 10 s in a log, with rate and ETA.
std::function<void(std::size_t, std::size_t)> progress_line(const std::string& verb, const std::string& units) {
  using Clock = std::chrono::steady_clock;
  const bool in_place = isatty(STDERR_FILENO) != 0;
  const Clock::time_point start = Clock::now();
  Clock::time_point last = start;
  return [=](std::size_t done, std::size_t total) mutable {
    const Clock::time_point now = Clock::now();
    const double interval = in_place ? 0.2 : 10.0;
    if (done < total && std::chrono::duration<double>(now - last).count() < interval) return;
    last = now;
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const double eta = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
    std::cerr << (in_place ? "\r" : "") << verb << " " << done << "/" << total << " " << units << "  "
              << ntp::format_number(static_cast<double>(done) / std::max(elapsed, 1e-9)) << " " << units
              << "/s  elapsed " << ntp::format_duration(elapsed) << "  eta " << ntp::format_duration(eta)
              << (in_place && done < total ? "   " : "\n") << std::flush;
  };
}

// `ntp eval --train F --rules R` without a model: the training facts, with
// the test and --filter files' symbols known and their atoms filtering.
ntp::TrainingData facts_to_rank_over(const cxxopts::ParseResult& r) {
  // The ranking protocol's test facts join the KB's symbols; Countries' test file names countries.
  const bool test_facts = r.count("protocol") && r["protocol"].as<std::string>() == "ranking";
  ntp::TrainingData data =
      ntp::read_training_data(get<std::string>(r, "train"), "", "", test_facts ? get<std::string>(r, "test") : "");
  if (r.count("filter"))
    for (const std::string& file : r["filter"].as<std::vector<std::string>>())
      for (const ntp::Atom& a : ntp::read_true_atoms(file, data.kb, ntp::NewSymbols::Allow)) data.dev.push_back(a);
  return data;
}

// `ntp eval`'s options but the search settings.
void add_eval_options(cxxopts::Options& o) {
  o.add_options("Model and data")
    ("model", "model file", cxxopts::value<std::string>())
    ("train", "with --rules and no --model: the facts the rules walk over (and filter)", cxxopts::value<std::string>())
    ("protocol", "countries, ranking or classification", cxxopts::value<std::string>())
    ("test", "countries: test countries, one per line; ranking: facts; classification: labelled TSV",
     cxxopts::value<std::string>())
    ("dev", "classification: labelled TSV to choose thresholds on", cxxopts::value<std::string>())
    ("regions", "countries: the regions, one per line", cxxopts::value<std::string>())
    ("truth", "countries: facts giving each test country's region", cxxopts::value<std::string>())
    ("filter", "ranking: more files of true facts to filter (default: every file the model saw)",
     cxxopts::value<std::vector<std::string>>());
  o.add_options("Scoring")
    ("score", "model (the model's own score), proof (proofs only), complex (ComplEx only), max or mean (of "
     "proof and ComplEx); the last three need an NTPλ model (--complex)", cxxopts::value<std::string>()->default_value("model"))
    ("tie-break", "ranking and countries: order atoms whose scores are exactly equal by their proof support "
     "(the sum of their proof paths' scores): support, or none (ties at the mean rank)",
     cxxopts::value<std::string>()->default_value("support"));
  o.add_options("Mined rules")
    ("rules", "ranking and countries: rank with the mined rules of this file (`ntp mine`) applied symbolically "
     "over the model's facts, not with the model: the rules-alone baseline", cxxopts::value<std::string>())
    ("aggregation", "how the rules predicting an atom combine (--rules', or the model's own kept rules): max "
     "(the best rule's confidence, ties broken by the next), noisy-or, or paths (noisy-or of each confidence times "
     "the share of the rule's paths from the known constant that reach the atom) (default: paths for countries, "
     "whose atoms come from many queries; max for ranking)", cxxopts::value<std::string>()->default_value(""))
    ("rule-ties", "with --rules: constants the rules tie take their mean rank (mean), or are ordered by the "
     "model's score as --score says (model)", cxxopts::value<std::string>()->default_value("mean"));
  o.add_options("Ranking")
    ("one-by-one", "ranking: score every corruption, not only those that can reach the true triple's score "
     "(slow; the ranks are the same: for checking)")
    ("ranks", "ranking: write each test triple's rank on each side to this TSV file", cxxopts::value<std::string>())
    ("sample", "ranking: rank only N test triples drawn at random (0 = all; every triple of the file is still "
     "filtered as true) and give each metric's 95% half-width", cxxopts::value<int>()->default_value("0"), "N")
    ("sample-seed", "ranking: the seed of --sample's draw", cxxopts::value<unsigned long long>()->default_value("0"));
  o.add_options("Output and process")
    ("threads", "OpenMP threads (0 = all cores)", cxxopts::value<int>()->default_value("0"))
    ("quiet", "no progress output")
    ("json", "print the metrics as one JSON object on the last line");
}

// Under `mpirun -np R`, the ranking's test triples are shared between the
// processes (ntp/eval/shards.h); process 0 alone prints and writes.
void share_with(const ProcessGroup& group, ntp::EvalRequest& q) {
  if (group.size() == 1) return;
  if (q.protocol != "ranking")
    throw UsageError("only the ranking protocol is shared between processes: run --protocol " + q.protocol +
                     " as one process (it takes seconds)");
  q.shard = share_of(group);
  if (group.rank() != 0) q.progress = nullptr;
}

int cmd_eval(int argc, char** argv, const ProcessGroup& group) {
  cxxopts::Options o("ntp eval", "Evaluate a model with one of the NTP protocols.");
  add_eval_options(o);
  add_search_options(o);
  const auto r = parse(o, argc, argv, {"Model and data", "Scoring", "Proof search", "Mined rules", "Ranking", "Output and process"});
  check_non_negative(r, {"k", "threads", "sample"});
  set_threads(r, group.size_on_this_machine());
  ntp::EvalRequest q;
  q.protocol = get<std::string>(r, "protocol");
  // Ranking searches an exact index unless told otherwise: load the model
  // with one rather than build its own (an HNSW graph on a large KB) for nothing.
  ntp::SearchOptions search = search_options(r);
  if (q.protocol == "ranking" && search.index.empty()) search.index = "exact";
  const ntp::Reasoner reasoner = r.count("model") || !r.count("rules")
                                     ? ntp::Reasoner::load(get<std::string>(r, "model"), search)
                                     : ntp::Reasoner::from_facts(facts_to_rank_over(r));
  q.test = get<std::string>(r, "test");
  if (q.protocol == "classification") q.dev = get<std::string>(r, "dev");
  if (q.protocol == "countries") q.regions = get<std::string>(r, "regions"), q.truth = get<std::string>(r, "truth");
  if (r.count("filter")) q.filter = r["filter"].as<std::vector<std::string>>();
  q.score = r["score"].as<std::string>();
  q.tie_break = r["tie-break"].as<std::string>();
  q.one_by_one = r.count("one-by-one") > 0;
  if (r.count("rules")) q.rules = r["rules"].as<std::string>();
  q.aggregation = r["aggregation"].as<std::string>();
  q.rule_ties = r["rule-ties"].as<std::string>();
  if (r.count("ranks")) q.ranks = r["ranks"].as<std::string>();
  q.sample = static_cast<std::size_t>(r["sample"].as<int>());
  q.sample_seed = r["sample-seed"].as<unsigned long long>();
  if (!r.count("quiet")) q.progress = progress_line("ranked", "sides");
  share_with(group, q);
  const ntp::EvalReport report = as_usage_error([&] { return reasoner.evaluate(q); });
  if (group.rank() != 0) return 0;
  if (!report.note.empty()) std::cout << report.note << "\n";
  for (const std::string& line : report.lines) std::cout << line << "\n";
  if (r.count("json")) std::cout << report.json << std::endl;
  return 0;
}

// Queries from a file, one per line (blank lines and lines starting with '%'
// skipped), each answered by `ask` and printed as one JSON line with its
// latency: {"query":…,"latency_ms":…,"result":{…}}, or "error" instead of
// "result" for a query that was refused. Returns 1 if any was.
int answer_each_line(const std::string& path, const std::function<std::string(const std::string&)>& ask) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  int status = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '%') continue;
    ntp::JsonObject out;
    out.add("query", line);
    const auto start = std::chrono::steady_clock::now();
    try {
      const std::string result = ask(line);
      out.add("latency_ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      out.add_raw("result", result);
    } catch (const std::exception& e) {
      out.add("error", std::string(e.what()));
      status = 1;
    }
    std::cout << out.text() << std::endl;
  }
  return status;
}

// The query options of prove and answer: one on the command line, or --queries FILE.
void add_query_options(cxxopts::Options& o, const char* query_help, const char* example) {
  o.add_options()
    ("query", query_help, cxxopts::value<std::string>())
    ("queries", "a file of queries, one per line: the model is loaded once and each query answered as one JSON "
     "line with its latency in milliseconds", cxxopts::value<std::string>());
  add_search_options(o);
  o.parse_positional({"query"});
  o.positional_help(example);
}

int cmd_prove(int argc, char** argv) {
  cxxopts::Options o("ntp prove", "Score a query atom and show its best proofs.");
  o.add_options()
    ("model", "model file", cxxopts::value<std::string>())
    ("top", "proofs to show", cxxopts::value<int>()->default_value("3"))
    ("format", "text, json (one object) or dot (a Graphviz graph of the proof tree; render with "
     "`dot -Tpng`)", cxxopts::value<std::string>()->default_value("text"));
  add_query_options(o, "the atom, e.g. \"locatedIn(palau, oceania)\"", "\"pred(a, b)\"");
  const auto r = parse(o, argc, argv);
  check_non_negative(r, {"k"});
  const std::string format = r["format"].as<std::string>();
  if (format != "text" && format != "json" && format != "dot")
    throw UsageError("--format is text, json or dot, got '" + format + "'");
  const ntp::Reasoner reasoner = load_reasoner(r);
  const int top = std::max(0, r["top"].as<int>());
  auto prove = [&](const std::string& q) { return ntp::to_json(reasoner.prove(q, top)); };
  if (r.count("queries")) return answer_each_line(r["queries"].as<std::string>(), prove);
  const ntp::Explanation e = reasoner.prove(get<std::string>(r, "query"), top);
  if (format == "json") std::cout << ntp::to_json(e) << std::endl;
  else if (format == "dot") std::cout << ntp::to_dot(e);
  else std::cout << ntp::to_text(e);
  return 0;
}

int cmd_answer(int argc, char** argv) {
  cxxopts::Options o("ntp answer", "Rank the bindings of a query's variables and show the best proof of each.");
  o.add_options()
    ("model", "model file", cxxopts::value<std::string>())
    ("top", "answers to show", cxxopts::value<int>()->default_value("10"))
    ("json", "print the answers as one JSON object")
    ("threads", "OpenMP threads (0 = all cores)", cxxopts::value<int>()->default_value("0"));
  add_query_options(o, "an atom with variables (upper case), e.g. \"locatedIn(palau, X)\"", "\"pred(a, X)\"");
  const auto r = parse(o, argc, argv);
  check_non_negative(r, {"k", "top", "threads"});
  set_threads(r);
  const ntp::Reasoner reasoner = load_reasoner(r);
  const int top = r["top"].as<int>();
  auto answer = [&](const std::string& q) { return ntp::to_json(q, reasoner.answer(q, top)); };
  if (r.count("queries")) return answer_each_line(r["queries"].as<std::string>(), answer);
  const std::string query = get<std::string>(r, "query");
  const std::vector<ntp::Answer> answers = reasoner.answer(query, top);
  if (r.count("json")) std::cout << ntp::to_json(query, answers) << std::endl;
  else std::cout << ntp::to_text(answers);
  return 0;
}

// The mined rules the model's ranking counts beside its score, the most confident ten.
void print_mined_rules(const std::vector<ntp::InducedRule>& mined) {
  if (mined.empty()) return;
  std::printf("\nthe model's ranking also counts %zu mined rules (`ntp prove` says how; `ntp eval --score proof` ranks "
              "without them); the most confident, with their confidence on the training facts:\n", mined.size());
  for (std::size_t i = 0; i < mined.size() && i < 10; ++i) std::printf("%.3f  %s\n", mined[i].confidence, mined[i].text.c_str());
}

// Mining's progress lines on stderr, one per phase (miner.h: "support", "pairs").
std::function<void(const std::string&, std::size_t, std::size_t)> mining_progress() {
  return [lines = std::map<std::string, std::function<void(std::size_t, std::size_t)>>()](
             const std::string& phase, std::size_t done, std::size_t total) mutable {
    auto it = lines.find(phase);
    if (it == lines.end())
      it = lines.emplace(phase, progress_line("counted " + phase + ":", phase == "pairs" ? "bodies" : "constants")).first;
    it->second(done, total);
  };
}

// The rules the model's training facts support, judged by the model, as
// JSON or as lines "<confidence>  <rule>  (<counted> on the training facts; ...)".
std::string judged_rules_json(const std::vector<ntp::JudgedRule>& judged, double min_confidence) {
  std::string list;
  for (const auto& rule : judged)
    if (rule.confidence >= min_confidence)
      list += (list.empty() ? "" : ",") + ntp::JsonObject()
                                               .add("rule", rule.text)
                                               .add("confidence", rule.confidence)
                                               .add("counted_confidence", rule.counted_confidence)
                                               .add("pairs", rule.pairs)
                                               .add("inferred", rule.inferred)
                                               .text();
  return "[" + list + "]";
}

void print_judged_rules(const ntp::JudgedRules& judged, double min_confidence) {
  std::printf("\nrules the training facts support (`ntp mine`), judged by the model: confidence once the facts it "
              "holds true complete the KB, then on the training facts alone (the model holds %.1f%% of random "
              "corruptions of its facts true%s):\n", 100 * judged.random_belief,
              judged.random_belief >= 0.5 ? ": its scores are no probabilities, and its judgments say nothing" : "");
  int shown = 0;
  for (const auto& rule : judged.rules) {
    if (rule.confidence < min_confidence) continue;
    std::printf("%.3f  %s  (%.3f on the training facts; %lld of %lld pairs inferred)\n", rule.confidence,
                rule.text.c_str(), rule.counted_confidence, rule.inferred, rule.pairs);
    ++shown;
  }
  if (shown == 0) std::printf("no mined rule with confidence >= %g\n", min_confidence);
}

int cmd_rules(int argc, char** argv) {
  cxxopts::Options o("ntp rules", "List induced rules, highest confidence first.");
  o.add_options()
    ("model", "model file", cxxopts::value<std::string>())
    ("min-confidence", "smallest confidence shown", cxxopts::value<double>()->default_value("0.5"))
    ("mine", "also mine the rules the model's training facts support (`ntp mine`'s defaults) and judge each by "
     "the model: its confidence once the facts the model holds true (score >= 0.5) complete the KB, beside its "
     "confidence on the training facts alone")
    ("json", "print the rules as one JSON object: {\"rules\":[{\"rule\":...,\"confidence\":...,\"text\":...,"
     "and for a rule that started as a mined one \"started_from\":...,\"mined_confidence\":...},...],"
     "\"mined_rules\":[{\"rule\":...,\"confidence\":...},...]} (mined_rules: those the model's ranking counts beside its "
     "score); with --mine also \"judged_rules\":[{\"rule\":...,\"confidence\":...,\"counted_confidence\":...,"
     "\"pairs\":...,\"inferred\":...},...] and \"random_belief\" (the share of random corruptions the model holds true)");
  const auto r = parse(o, argc, argv);
  const ntp::Reasoner reasoner = ntp::Reasoner::load(get<std::string>(r, "model"));
  const double min_confidence = r["min-confidence"].as<double>();
  const auto rules = reasoner.rules(min_confidence);
  const auto first = reasoner.mined_rules();
  ntp::JudgedRules judged;
  if (r.count("mine")) {
    ntp::MineOptions mining;
    mining.progress = mining_progress();
    judged = reasoner.judged_rules(mining, progress_line("judged", "atoms"));
  }
  if (r.count("json")) {
    std::string list;
    for (const auto& rule : rules) {
      ntp::JsonObject one;
      one.add("rule", rule.rule).add("confidence", rule.confidence).add("text", rule.text);
      if (!rule.started_from.empty()) one.add("started_from", rule.started_from).add("mined_confidence", rule.mined_confidence);
      list += (list.empty() ? "" : ",") + one.text();
    }
    std::string mined;
    for (const auto& rule : first)
      mined += (mined.empty() ? "" : ",") + ntp::JsonObject().add("rule", rule.text).add("confidence", rule.confidence).text();
    ntp::JsonObject out;
    out.add_raw("rules", "[" + list + "]").add_raw("mined_rules", "[" + mined + "]");
    if (r.count("mine"))
      out.add_raw("judged_rules", judged_rules_json(judged.rules, min_confidence)).add("random_belief", judged.random_belief);
    std::cout << out.text() << std::endl;
    return 0;
  }
  for (const auto& rule : rules) {
    std::printf("%.3f  %s\n", rule.confidence, rule.text.c_str());
    if (!rule.started_from.empty())
      std::printf("       started from %s (confidence %.3f on the training facts)\n", rule.started_from.c_str(), rule.mined_confidence);
  }
  if (rules.empty()) std::printf("no rule with confidence >= %g\n", min_confidence);
  print_mined_rules(first);
  if (r.count("mine")) print_judged_rules(judged, min_confidence);
  return 0;
}

// `ntp mine`'s options, with the library's defaults.
void add_mine_options(cxxopts::Options& o) {
  const ntp::MineOptions d;
  o.add_options("Data")
    ("train", "facts (.nl or .tsv)", cxxopts::value<std::string>())
    ("dev", "dev facts: also try the rules without those with a constant, and one-atom rules alone (--max-atoms "
     "1), and keep the first of these (chains, with constants, one-atom) that ranks them within noise of the best "
     "(two standard errors)", cxxopts::value<std::string>())
    ("test", "with --dev: test facts, which the dev ranking filters as true (as evaluation does)",
     cxxopts::value<std::string>())
    ("out", "write the rules to this file (default: standard output)", cxxopts::value<std::string>());
  o.add_options("Rules counted")
    ("max-atoms", "body atoms: 1 (implications and inverses), 2 (also chains of two) or 3 (also chains of three)",
     cxxopts::value<int>()->default_value(std::to_string(d.max_body_atoms)))
    ("constants", "also rules with a constant: h(X, c) :- r(X, d) and h(X, c) :- r(X, Z), either argument "
     "(--constants=false: none)", cxxopts::value<bool>()->default_value(d.constant_rules ? "true" : "false"))
    ("min-support", "pairs a rule must predict that are facts", cxxopts::value<long long>()->default_value(std::to_string(d.min_support)))
    ("min-head-coverage", "share of its head's facts a rule must predict",
     cxxopts::value<double>()->default_value(ntp::format_number(d.min_head_coverage)))
    ("min-confidence", "smallest confidence kept", cxxopts::value<double>()->default_value(ntp::format_number(d.min_confidence)))
    ("rules-per-head", "rules kept per head predicate, most confident first (0 = all): a rule set to train from "
     "keeps a few", cxxopts::value<int>()->default_value(std::to_string(d.rules_per_head)));
  o.add_options("Process")
    ("threads", "OpenMP threads (0 = all cores)", cxxopts::value<int>()->default_value("0"))
    ("quiet", "no progress output");
}

// The rule sets `ntp mine --dev` ranks the dev facts with: the rules mined
// with `m` without those with a constant, then with them, and one-atom
// rules alone (choose_rule_set keeps the first the best does not clearly beat).
std::vector<ntp::NamedRuleSet> rule_sets_to_try(const ntp::KnowledgeBase& kb, ntp::MineOptions m,
                                                const std::vector<ntp::MinedRule>& mined) {
  std::vector<ntp::NamedRuleSet> sets = ntp::with_and_without_constants(m.max_body_atoms > 1 ? "chains" : "one-atom", mined);
  if (m.max_body_atoms > 1) {
    m.max_body_atoms = 1;
    m.constant_rules = false;
    m.progress = nullptr;  // a second pass of seconds at most
    sets.push_back({"one-atom", ntp::mine_rules(kb, m).rules});
  }
  return sets;
}

int cmd_mine(int argc, char** argv) {
  cxxopts::Options o("ntp mine", "Count the rules the facts support: implications, inverses and chains of two, "
                     "with support, head coverage, confidence and PCA confidence (AMIE's measures).");
  add_mine_options(o);
  const auto r = parse(o, argc, argv, {"Data", "Rules counted", "Process"});
  check_non_negative(r, {"threads"});
  set_threads(r);
  ntp::MineOptions m;
  m.max_body_atoms = r["max-atoms"].as<int>();
  m.min_support = r["min-support"].as<long long>();
  m.min_head_coverage = r["min-head-coverage"].as<double>();
  m.min_confidence = r["min-confidence"].as<double>();
  m.rules_per_head = r["rules-per-head"].as<int>();
  m.constant_rules = r["constants"].as<bool>();
  const ntp::TrainingData data =
      ntp::read_training_data(get<std::string>(r, "train"), "", r.count("dev") ? r["dev"].as<std::string>() : "",
                              r.count("test") ? r["test"].as<std::string>() : "");
  if (!r.count("quiet")) m.progress = mining_progress();
  stop_requested.store(false);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  m.stop = &stop_requested;
  const auto start = std::chrono::steady_clock::now();
  const ntp::MineResult result = as_usage_error([&] { return ntp::mine_rules(data.kb, m); });
  if (result.stopped) {
    std::cerr << "stopped: no rules written\n";
    return 128 + stop_signal.load();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<ntp::MinedRule> rules = result.rules;
  if (r.count("dev")) {
    std::vector<ntp::NamedRuleSet> sets = rule_sets_to_try(data.kb, m, rules);
    const std::size_t count = sets.size();
    const auto progress = r.count("quiet") ? std::function<void(std::size_t, std::size_t)>()
                                            : progress_line("ranked dev with " + std::to_string(count) + " rule sets:", "sides");
    ntp::RuleSetChoice choice = ntp::choose_rule_set(data.kb, std::move(sets), data.dev, data.test, progress);
    std::cerr << "kept on dev: " << choice.description << "\n";
    rules = std::move(choice.kept);
  }
  if (r.count("out")) ntp::save_mined_rules(r["out"].as<std::string>(), data.kb, rules);
  else ntp::write_mined_rules(std::cout, data.kb, rules);
  std::cerr << "mined " << rules.size() << " rules from " << data.kb.facts.size() << " facts in "
            << ntp::format_duration(seconds) << " (" << result.candidates << " candidates, " << result.bodies
            << " bodies counted, " << result.estimated << " rules' pairs estimated from a sample, "
            << result.with_constant << " rules with a constant)"
            << (r.count("out") ? "; written to " + r["out"].as<std::string>() : std::string()) << "\n";
  return 0;
}

// What a process of a group (`mpirun -np R`) says before every process ends.
int group_failed(const ProcessGroup& group, const std::string& command, int code) {
  if (group.size() == 1) return code;
  std::cerr << "ntp " << command << ": process " << group.rank() << " of " << group.size()
            << " failed; stopping them all\n";
  group.abort(code);
}

int run(int argc, char** argv, const ProcessGroup& group) {
  if (argc >= 2 && std::string(argv[1]) == "--version") {
    std::cout << ntp::build_line() << "\n";
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  try {
    if (group.size() > 1 && command != "eval" && command != "train")
      throw std::invalid_argument("only `ntp train` and `ntp eval --protocol ranking` are shared between processes "
                                  "(mpirun -np " + std::to_string(group.size()) + "); run `ntp " + command +
                                  "` as one process");
    if (command == "train") return cmd_train(argc - 1, argv + 1, group);
    if (command == "eval") return cmd_eval(argc - 1, argv + 1, group);
    if (command == "prove") return cmd_prove(argc - 1, argv + 1);
    if (command == "answer") return cmd_answer(argc - 1, argv + 1);
    if (command == "rules") return cmd_rules(argc - 1, argv + 1);
    if (command == "mine") return cmd_mine(argc - 1, argv + 1);
    std::cerr << "ntp: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "ntp " << command << ": " << e.what() << " (see `ntp " << command << " --help`)\n";
    return group_failed(group, command, 2);
  } catch (const std::exception& e) {
    std::cerr << "ntp " << command << ": " << e.what() << "\n";
    return group_failed(group, command, 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const ProcessGroup group(&argc, &argv);
  return run(argc, argv, group);
}
