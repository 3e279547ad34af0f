// ntp/train/option_table.cpp: the training settings by name (see
// option_table.h): the table, the text readers of each kind of value, and the
// checks of the settings together.
#include "ntp/train/option_table.h"

#include "ntp/kb/text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ntp {

namespace {

// A value's text must not start with a blank (strto* would skip it) and must be read whole.
bool read_whole(const std::string& value, const char* end) {
  return !value.empty() && !std::isspace(static_cast<unsigned char>(value[0])) && *end == '\0' && errno == 0;
}

int read_int(const std::string& value) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (!read_whole(value, end) || v < INT_MIN || v > INT_MAX)
    throw std::invalid_argument("is an integer, got '" + value + "'");
  return static_cast<int>(v);
}

std::uint64_t read_seed(const std::string& value) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  if (!read_whole(value, end) || value[0] == '-')
    throw std::invalid_argument("is an integer in 0..2^64-1, got '" + value + "'");
  return v;
}

double read_number(const std::string& value) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (!read_whole(value, end)) throw std::invalid_argument("is a number, got '" + value + "'");
  return v;
}

// "1e-4" or "1e-4,1e-3": one number or several, comma-separated.
std::vector<double> read_numbers(const std::string& value) {
  std::vector<double> numbers;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = value.find(',', start);
    const std::string one = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    try {
      numbers.push_back(read_number(one));
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("is a number or several separated by commas, got '" + value + "'");
    }
    if (comma == std::string::npos) return numbers;
    start = comma + 1;
  }
}

bool read_bool(const std::string& value) {
  if (value != "true" && value != "false") throw std::invalid_argument("is true or false, got '" + value + "'");
  return value == "true";
}

std::string text(int v) { return std::to_string(v); }
std::string text(double v) { return format_number(v); }
std::string text(bool v) { return v ? "true" : "false"; }

// --combine: a rule (CombineFrom::Given), or where the rule comes from.
std::string combine_text(const TrainSettings& s) {
  switch (s.run.combine_from) {
    case CombineFrom::Auto: return "auto";
    case CombineFrom::Dev: return "dev";
    case CombineFrom::Given: break;
  }
  return combine_name(s.model.prover.combine);
}

void set_combine(TrainSettings& s, const std::string& v) {
  s.model.prover.combine = Combine::Mean;  // a choice on dev replaces it
  if (v == "auto") s.run.combine_from = CombineFrom::Auto;
  else if (v == "dev") s.run.combine_from = CombineFrom::Dev;
  else if (combine_from_name(v, &s.model.prover.combine)) s.run.combine_from = CombineFrom::Given;
  else throw std::invalid_argument("is max, mean, proof, complex, dev or auto, got '" + v + "'");
}

// --l2: one value (TrainOptions::l2) or several to choose from on dev
// (RunOptions::l2_choices).
std::string l2_text(const TrainSettings& s) {
  if (s.run.l2_choices.size() < 2) return text(s.train.l2);
  std::string joined;
  for (double v : s.run.l2_choices) joined += (joined.empty() ? "" : ",") + text(v);
  return joined;
}

void set_l2(TrainSettings& s, const std::string& v) {
  std::vector<double> values = read_numbers(v);
  s.train.l2 = values.front();
  s.run.l2_choices.clear();
  if (values.size() > 1) s.run.l2_choices = std::move(values);
}

// The model a run trains (ModelOptions).
void add_model_settings(std::vector<TrainOption>& t) {
  using S = TrainSettings;
  using V = const std::string&;
  t.push_back({"dim", OptionGroup::Model, OptionKind::Integer, "embedding dimension",
               [](const S& s) { return text(s.model.dim); }, [](S& s, V v) { s.model.dim = read_int(v); }});
  t.push_back({"depth", OptionGroup::ProofSearch, OptionKind::Integer, "maximum rule applications per proof",
               [](const S& s) { return text(s.model.prover.depth); },
               [](S& s, V v) { s.model.prover.depth = read_int(v); }});
  t.push_back({"k", OptionGroup::ProofSearch, OptionKind::Integer, "facts kept per or-step in training (0 = all: exhaustive NTP); with dev facts, ranking keeps k, 2k, 4k or 8k, the best on dev",
               [](const S& s) { return text(s.model.prover.k_facts); },
               [](S& s, V v) { s.model.prover.k_facts = read_int(v); }});
  t.push_back({"k-rules", OptionGroup::ProofSearch, OptionKind::Integer, "rules kept per or-step (0 = all)",
               [](const S& s) { return text(s.model.prover.k_rules); },
               [](S& s, V v) { s.model.prover.k_rules = read_int(v); }});
  t.push_back({"k-open", OptionGroup::ProofSearch, OptionKind::Integer,
               "facts kept per or-step for an atom with an unbound argument, as a chain rule's first hop (at least k; 0 = k)",
               [](const S& s) { return text(s.model.prover.k_open); },
               [](S& s, V v) { s.model.prover.k_open = read_int(v); }});
  t.push_back({"index", OptionGroup::ProofSearch, OptionKind::Name,
               "fact index: auto, table, brute, kdtree, exact, hnsw (exact: for a trained model, as in evaluation; auto: table when the constants fit a C x C table, "
               "else hnsw)",
               [](const S& s) { return s.model.prover.index; }, [](S& s, V v) { s.model.prover.index = v; }});
  t.push_back({"complex", OptionGroup::Model, OptionKind::Switch,
               "NTPλ: train ComplEx jointly on the same embeddings and join the two scores (see --combine); "
               "--complex=false trains the plain prover",
               [](const S& s) { return text(s.model.prover.complex); },
               [](S& s, V v) { s.model.prover.complex = read_bool(v); }});
  t.push_back({"combine", OptionGroup::Model, OptionKind::Name,
               "NTPλ's score: max or mean of the proof and ComplEx scores, or proof (the proof score alone: "
               "ComplEx only shapes the embeddings in training), or complex (the ComplEx score alone: the "
               "proofs only explain), or dev (whichever of max, mean and proof ranks, or "
               "classifies, at most 500 dev facts best after training; needs --dev), or auto (dev when there are "
               "dev facts, given by --dev or held out by --dev-from-train, else mean)",
               combine_text, set_combine});
  t.push_back({"attention", OptionGroup::Model, OptionKind::Flag,
               "rule slots are softmax mixes of the KB's predicates (GNTP's attention), so rules cannot drift "
               "away from real relations; `ntp rules` reads them off the attention",
               [](const S& s) { return text(s.model.attention); }, [](S& s, V v) { s.model.attention = read_bool(v); }});
  t.push_back({"reformulator", OptionGroup::Model, OptionKind::Name,
               "conditional proving (CTP): none, or linear or attentive, which compute the body predicates of "
               "every rule whose head is a slot from the goal's predicate, so that one rule serves every relation "
               "with its own body; attentive keeps them mixes of real relations (implies --attention)",
               [](const S& s) { return std::string(reformulator_name(s.model.reformulator)); },
               [](S& s, V v) {
                 if (!reformulator_from_name(v, &s.model.reformulator))
                   throw std::invalid_argument("is none, linear or attentive, got '" + v + "'");
               }});
  t.push_back({"constant-init", OptionGroup::Model, OptionKind::Number,
               "constant embeddings start uniform in [-x, x]; below 1 for large sparse KBs, whose constants "
               "ComplEx meets a few times an epoch",
               [](const S& s) { return text(s.model.constant_init); },
               [](S& s, V v) { s.model.constant_init = read_number(v); }});
  t.push_back({"seed", OptionGroup::Model, OptionKind::Integer, "random seed", [](const S& s) { return std::to_string(s.model.seed); },
               [](S& s, V v) { s.model.seed = s.train.seed = read_seed(v); }});
}

// The ComplEx-only epochs before the prover's, and what the prover's may move
// (TrainOptions::complex_epochs ... freeze_kb).
void add_complex_only_settings(std::vector<TrainOption>& t) {
  using S = TrainSettings;
  using V = const std::string&;
  t.push_back({"complex-epochs", OptionGroup::ComplExEpochs, OptionKind::Integer,
               "the first N epochs train ComplEx alone, without proofs (NTPλ; seconds an epoch on a large KB)",
               [](const S& s) { return text(s.train.complex_epochs); },
               [](S& s, V v) { s.train.complex_epochs = read_int(v); }});
  t.push_back({"complex-loss", OptionGroup::ComplExEpochs, OptionKind::Name,
               "the ComplEx-only epochs' loss: sampled (each fact and its --negatives corruptions) or all "
               "(1-vs-all: a softmax over every constant as the fact's object, and as its subject)",
               [](const S& s) { return std::string(complex_loss_name(s.train.complex_loss)); },
               [](S& s, V v) {
                 if (!complex_loss_from_name(v, &s.train.complex_loss))
                   throw std::invalid_argument("is sampled or all, got '" + v + "'");
               }});
  t.push_back({"complex-batch", OptionGroup::ComplExEpochs, OptionKind::Integer,
               "positive facts per update with --complex-loss all (rounded up to whole --batch steps)",
               [](const S& s) { return text(s.train.complex_batch); },
               [](S& s, V v) { s.train.complex_batch = read_int(v); }});
  t.push_back({"complex-candidates", OptionGroup::ComplExEpochs, OptionKind::Integer,
               "with --complex-loss all, the wrong constants each update scores besides its own true ones, "
               "drawn afresh (a sampled softmax; 0 = every constant)",
               [](const S& s) { return text(s.train.complex_candidates); },
               [](S& s, V v) { s.train.complex_candidates = read_int(v); }});
  t.push_back({"freeze-kb", OptionGroup::ComplExEpochs, OptionKind::Flag,
               "in the epochs with proofs only the rules learn: the constants and the KB's relations keep their "
               "embeddings (for example those --complex-epochs gave them)",
               [](const S& s) { return text(s.train.freeze_kb); }, [](S& s, V v) { s.train.freeze_kb = read_bool(v); }});
}

// What each step proves and trains its proofs against (TrainOptions::negatives ... mask).
void add_goal_settings(std::vector<TrainOption>& t) {
  using S = TrainSettings;
  using V = const std::string&;
  t.push_back({"negatives", OptionGroup::Learning, OptionKind::Integer, "corruptions per positive",
               [](const S& s) { return text(s.train.negatives); }, [](S& s, V v) { s.train.negatives = read_int(v); }});
  t.push_back({"proof-loss", OptionGroup::Learning, OptionKind::Name,
               "the loss of the proofs: binary (NTP's cross-entropy of each score against its label) or ranking "
               "(each positive's score against its own corruptions' in one softmax; wants many --negatives)",
               [](const S& s) { return std::string(proof_loss_name(s.train.proof_loss)); },
               [](S& s, V v) {
                 if (!proof_loss_from_name(v, &s.train.proof_loss))
                   throw std::invalid_argument("is binary or ranking, got '" + v + "'");
               }});
  t.push_back({"predicate-negatives", OptionGroup::Learning, OptionKind::Integer,
               "of the --negatives corruptions per positive, how many replace the predicate (by another of its "
               "arity that shares no argument pair with it in training) instead of a constant, so that similar "
               "relations are told apart",
               [](const S& s) { return text(s.train.predicate_negatives); },
               [](S& s, V v) { s.train.predicate_negatives = read_int(v); }});
  t.push_back({"mask", OptionGroup::Learning, OptionKind::Name,
               "what a training fact's proofs may not use: fact (itself) or pair (every fact between "
               "its constants, e.g. its inverse; for KBs stored with inverses, such as WN11)",
               [](const S& s) { return std::string(training_mask_name(s.train.mask)); },
               [](S& s, V v) {
                 if (!training_mask_from_name(v, &s.train.mask))
                   throw std::invalid_argument("is fact or pair, got '" + v + "'");
               }});
}

// How the model learns (TrainOptions).
void add_learning_settings(std::vector<TrainOption>& t) {
  using S = TrainSettings;
  using V = const std::string&;
  t.push_back({"epochs", OptionGroup::Learning, OptionKind::Integer, "passes over the training facts",
               [](const S& s) { return text(s.train.epochs); }, [](S& s, V v) { s.train.epochs = read_int(v); }});
  add_complex_only_settings(t);
  t.push_back({"batch", OptionGroup::Learning, OptionKind::Integer, "positive facts per step", [](const S& s) { return text(s.train.batch); },
               [](S& s, V v) { s.train.batch = read_int(v); }});
  t.push_back({"lr", OptionGroup::Learning, OptionKind::Number, "learning rate", [](const S& s) { return text(s.train.learning_rate); },
               [](S& s, V v) { s.train.learning_rate = read_number(v); }});
  t.push_back({"l2", OptionGroup::Learning, OptionKind::Numbers,
               "L2 regularisation (each step, on the embeddings it touched); several values (1e-4,1e-3; a list in Python) train "
               "one model each and keep the best on at most 500 dev facts (given by --dev or held out: "
               "--dev-from-train; without either, the first value)",
               l2_text, set_l2});
  t.push_back({"l2-predicates", OptionGroup::Learning, OptionKind::Number,
               "L2 on the predicate table's rows (relations, free rule slots) instead of --l2 (-1 = --l2's)",
               [](const S& s) { return text(s.train.l2_predicates); },
               [](S& s, V v) { s.train.l2_predicates = read_number(v); }});
  t.push_back({"clip", OptionGroup::Learning, OptionKind::Number, "element-wise gradient clip (0 = off)",
               [](const S& s) { return text(s.train.clip); }, [](S& s, V v) { s.train.clip = read_number(v); }});
  t.push_back({"optimizer", OptionGroup::Learning, OptionKind::Name, "adam, adagrad or sgd", [](const S& s) { return s.train.optimizer; },
               [](S& s, V v) { s.train.optimizer = v; }});
  add_goal_settings(t);
  t.push_back({"explore", OptionGroup::ProofSearch, OptionKind::Number,
               "exploration: score a goal in training by a soft max over its proof paths at this temperature, "
               "annealed to the hard max by the middle epoch, so that rules not yet winning get gradient (0 = off)",
               [](const S& s) { return text(s.train.explore); }, [](S& s, V v) { s.train.explore = read_number(v); }});
  t.push_back({"refresh", OptionGroup::ProofSearch, OptionKind::Integer,
               "steps between fact-index updates with the moved embeddings (0 = the index's own: every step for a table, "
               "every 10,000 for hnsw)",
               [](const S& s) { return text(s.train.index.update_every); },
               [](S& s, V v) { s.train.index.update_every = read_int(v); }});
  t.push_back({"recall-every", OptionGroup::Dev, OptionKind::Integer,
               "steps between measurements of an approximate index's recall@1 against exact search (0 = never)",
               [](const S& s) { return text(s.train.recall_every); },
               [](S& s, V v) { s.train.recall_every = read_int(v); }});
}

// What a run keeps (RunOptions), and the profile of its steps.
void add_run_settings(std::vector<TrainOption>& t) {
  using S = TrainSettings;
  using V = const std::string&;
  t.push_back({"eval-every", OptionGroup::Dev, OptionKind::Integer,
               "measure the dev metric after every N-th epoch (0 = never; needs --dev): filtered MRR, or "
               "accuracy for a labelled dev file",
               [](const S& s) { return text(s.run.eval_every); }, [](S& s, V v) { s.run.eval_every = read_int(v); }});
  t.push_back({"keep", OptionGroup::Dev, OptionKind::Name,
               "which model --model gets when the dev metric is measured: best (the default: the measurement is "
               "there to choose with, and an overfitting run then does not end on a worse model) or last",
               [](const S& s) { return std::string(keep_name(s.run.keep)); },
               [](S& s, V v) {
                 if (!keep_from_name(v, &s.run.keep)) throw std::invalid_argument("is best or last, got '" + v + "'");
               }});
  t.push_back({"mined-rules", OptionGroup::Dev, OptionKind::Switch,
               "after training, mine the rules the training facts support and keep them in the model beside its "
               "score (ranked first, or their confidence added with a weight) when dev says they rank better (needs "
               "dev facts: --dev or --dev-from-train; `ntp eval --score` still names the neural parts alone); "
               "--mined-rules=false keeps the model alone",
               [](const S& s) { return text(s.run.mined_rules_on_dev); },
               [](S& s, V v) { s.run.mined_rules_on_dev = read_bool(v); }});
  t.push_back({"mined-templates", OptionGroup::Dev, OptionKind::Switch,
               "with --templates FILE, --dev and a KB of at most 20,000 facts: also train a prover started from "
               "rules mined from the training facts (--templates mined) and keep the one whose model ranks dev "
               "better; --mined-templates=false trains the file's templates alone",
               [](const S& s) { return text(s.run.mined_templates_on_dev); },
               [](S& s, V v) { s.run.mined_templates_on_dev = read_bool(v); }});
  t.push_back({"dev-from-train", OptionGroup::Dev, OptionKind::Switch,
               "with no --dev, on a KB of at most 20,000 facts: hold 10% of the training facts out (at most 500) to "
               "make the choices above on, then train on every fact with the values chosen (three trainings in "
               "all); --dev-from-train=false makes no choice without --dev",
               [](const S& s) { return text(s.run.dev_from_train); },
               [](S& s, V v) { s.run.dev_from_train = read_bool(v); }});
  t.push_back({"resume", OptionGroup::Output, OptionKind::Flag,
               "continue from the checkpoint MODEL.ckpt (written after every epoch and on Ctrl-C) with the same "
               "options; --epochs may grow",
               [](const S& s) { return text(s.run.resume); }, [](S& s, V v) { s.run.resume = read_bool(v); }});
  t.push_back({"log", OptionGroup::Output, OptionKind::Name,
               "write one JSON object per epoch to this file (loss, seconds, dev metric, recall; appended to on "
               "--resume)",
               [](const S& s) { return s.run.log_path; }, [](S& s, V v) { s.run.log_path = v; }});
  t.push_back({"profile", OptionGroup::Output, OptionKind::Flag,
               "print where each epoch's time goes (proof search, retrieval, index maintenance, forward, "
               "backward, optimiser) and the gradient a step gives (rows, bytes)",
               [](const S& s) { return text(s.train.profile); }, [](S& s, V v) { s.train.profile = read_bool(v); }});
}

std::vector<TrainOption> make_table() {
  std::vector<TrainOption> table;
  add_model_settings(table);
  add_learning_settings(table);
  add_run_settings(table);
  return table;
}

bool given(const std::vector<OptionText>& options, const std::string& name) {
  return std::any_of(options.begin(), options.end(),
                     [&](const OptionText& o) { return find_train_option(o.name) == find_train_option(name); });
}

}  // namespace

const char* option_group_title(OptionGroup group) {
  switch (group) {
    case OptionGroup::Model: return "Model";
    case OptionGroup::ProofSearch: return "Proof search";
    case OptionGroup::Learning: return "Learning";
    case OptionGroup::ComplExEpochs: return "ComplEx warm-up";
    case OptionGroup::Dev: return "Dev";
    case OptionGroup::Output: return "Output";
  }
  return "";
}

const std::vector<OptionGroup>& option_groups() {
  static const std::vector<OptionGroup> groups{OptionGroup::Model,         OptionGroup::ProofSearch,
                                               OptionGroup::Learning,      OptionGroup::ComplExEpochs,
                                               OptionGroup::Dev,           OptionGroup::Output};
  return groups;
}

const std::vector<TrainOption>& train_option_table() {
  static const std::vector<TrainOption> table = make_table();
  return table;
}

const TrainOption* find_train_option(const std::string& name) {
  std::string key = name;
  std::replace(key.begin(), key.end(), '_', '-');
  for (const TrainOption& option : train_option_table())
    if (key == option.name) return &option;
  return nullptr;
}

std::string spell_option(const std::string& name, OptionSpelling spelling) {
  std::string s = name;
  if (spelling == OptionSpelling::CommandLine) return "--" + s;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

void apply_train_options(TrainSettings& settings, const std::vector<OptionText>& options, bool has_dev,
                         OptionSpelling spelling) {
  for (const OptionText& o : options) {
    const TrainOption* option = find_train_option(o.name);
    if (!option) throw std::invalid_argument("unknown training option " + spell_option(o.name, spelling));
    try {
      option->set(settings, o.value);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(spell_option(option->name, spelling) + " " + e.what());
    }
  }
  if (given(options, "combine") && !settings.model.prover.complex)
    throw std::invalid_argument(spell_option("combine", spelling) + " needs " + spell_option("complex", spelling) +
                                " (it joins NTP and ComplEx)");
  if (settings.run.combine_from == CombineFrom::Dev && !has_dev)
    throw std::invalid_argument(spell_option("combine", spelling) + " dev needs " + spell_option("dev", spelling) +
                                " (the facts to choose on)");
  if (given(options, "complex-loss") && settings.train.complex_epochs == 0)
    throw std::invalid_argument(spell_option("complex-loss", spelling) + " needs " +
                                spell_option("complex-epochs", spelling) + " (it sets how the ComplEx-only epochs learn)");
  for (const char* name : {"complex-batch", "complex-candidates"})
    if (given(options, name) && settings.train.complex_loss != ComplexLoss::All)
      throw std::invalid_argument(spell_option(name, spelling) + " needs " + spell_option("complex-loss", spelling) +
                                  " all (it sets the 1-vs-all updates)");
  if (settings.train.complex_epochs > 0 && !settings.model.prover.complex)
    throw std::invalid_argument(spell_option("complex-epochs", spelling) + " needs " +
                                spell_option("complex", spelling) + " (they train its ComplEx part)");
  if (settings.run.eval_every > 0 && !has_dev)
    throw std::invalid_argument(spell_option("eval-every", spelling) + " needs " + spell_option("dev", spelling) +
                                " (the facts to measure on)");
  check_options(settings.model);
  check_options(settings.train);
  check_options(settings.run);
}

}  // namespace ntp
