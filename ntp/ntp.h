// ntp/ntp.h: the library's public interface, for programs that embed a prover.
//
//   ntp::Reasoner r = ntp::Reasoner::load("family.ntp");
//   ntp::Explanation e = r.prove("grandfatherOf(abe, bart)");    // score, best proofs as data
//   for (const ntp::Answer& a : r.answer("fatherOf(X, bart)", 5))  // ranked bindings
//     std::cout << a.atom << " " << a.score << "\n";
//   std::vector<double> s = r.score({"fatherOf(abe, homer)"});    // many atoms at once
//   for (const ntp::InducedRule& rule : r.rules(0.5)) std::cout << rule.text << "\n";
//
//   ntp::TrainingData data = ntp::read_training_data("train.nl", "rules.nlt");  // or from_text(...)
//   ntp::Model m = ntp::new_model(data, ntp::ModelOptions{});
//   ntp::train(m, ntp::TrainOptions{}, &std::cerr);
//   ntp::save_model(m, "out.ntp");
//   // or, with a dev metric, checkpoints and resumption: ntp::run_training (training_run.h)
//
// Every error is an exception derived from std::exception whose what() says
// what was wrong and where: ntp::ParseError (file, line, column) for text
// input, std::runtime_error naming the file for model files, and
// std::invalid_argument for a bad value passed in.
//
// The declarations below are the API proper; the headers it includes hold
// the types it uses (Model, TrainOptions, InducedRule, ...) and the layers
// underneath, for programs that want them.
#pragma once

#include "ntp/evaluate.h"
#include "ntp/model.h"
#include "ntp/parse.h"
#include "ntp/rules.h"
#include "ntp/train.h"
#include "ntp/training_run.h"

#include <memory>
#include <string>
#include <vector>

namespace ntp {

// ---- explanations ---------------------------------------------------------

// A variable and the symbol it was bound to.
struct Binding {
  std::string variable;
  std::string value;
};

// Two symbols unification compared, and the kernel between their embeddings.
struct SymbolMatch {
  std::string goal_symbol;     // from the atom being proven, e.g. "grandfatherOf"
  std::string matched_symbol;  // from the fact or rule head, e.g. "#1"
  double score = 1;            // exp(-‖θ_goal - θ_matched‖)
};

// One `or` step of a proof: an atom proven by a fact or by a rule.
struct Step {
  int depth = 0;                    // rule applications above this step (0: the query itself)
  std::string goal;                 // the atom as asked, variables by name: "#2(m15, Z)"
  bool by_rule = false;
  int id = -1;                      // index into Model::rules or Model::kb.facts
  std::string used;                 // "fatherOf(m15, m3)" or "#1(X, Y) :- #2(X, Z), #3(Z, Y)"
  std::string reading;              // a rule read with its nearest KB predicates ("" for a fact)
  double confidence = 1;            // that reading's confidence (rules.h)
  std::vector<Binding> substitution;  // what this step bound: a rule's head variables, a goal's variables
  std::vector<SymbolMatch> matches; // the symbol pairs compared
  double score = 1;                 // min over matches (1 when nothing was compared)
};

struct Proof {
  double score = 0;  // min over its steps
  std::vector<Step> steps;  // depth first, in the order the prover took them
};

struct Explanation {
  std::string atom;         // the atom proven, as the program writes atoms
  double score = 0;         // the model's score: the best proof's, joined with ComplEx for NTPλ
  double proof_score = 0;   // the best proof's score
  double complex_score = -1;  // NTPλ models: the ComplEx score; -1 otherwise
  std::size_t proofs_searched = 0;
  std::vector<Proof> proofs;  // best first, at most the number asked for
};

// A binding of a query's variables that the model believes, with its score.
struct Answer {
  std::vector<Binding> bindings;  // one per variable of the query, in order of appearance
  std::string atom;               // the query with the bindings put in
  double score = 0;               // the model's score of `atom`
  bool known = false;             // `atom` is a fact of the KB
  Proof best_proof;               // empty (no steps) if no proof was found
};

// How a Reasoner searches; defaults are the model's own settings.
struct SearchOptions {
  int k = -1;             // facts kept per or-step; -1 = the model's
  std::string index;      // fact index kind; "" = the model's
};

// A trained model, ready to be asked. It holds the model by value; its
// const methods may be called from several threads at once (each call builds
// the fact index it searches: cheap for `table`, seconds for `hnsw` on WN11).
class Reasoner {
 public:
  explicit Reasoner(Model model, SearchOptions options = {});
  // Throws std::runtime_error naming `path` if it is missing, damaged or not a model.
  static Reasoner load(const std::string& path, SearchOptions options = {});

  // Scores a ground atom, "grandfatherOf(abe, bart)", and explains its
  // `top_proofs` best proofs. Unknown symbols and syntax errors throw ParseError.
  Explanation prove(const std::string& atom, int top_proofs = 3) const;
  Explanation prove(const Atom& atom, int top_proofs = 3) const;
  // The `top` best bindings of a query's variables, "locatedIn(palau, X)",
  // each with its score and best proof. Every constant is tried at each
  // variable (at most kMaxCandidates groundings: two variables over a large
  // KB are refused); known facts included.
  static constexpr long long kMaxCandidates = 4'000'000;
  std::vector<Answer> answer(const std::string& query, int top = 10) const;
  // The model's score of each ground atom.
  std::vector<double> score(const std::vector<std::string>& atoms) const;
  std::vector<double> score_ground_atoms(const std::vector<Atom>& atoms) const;  // the same, parsed
  // The induced rules with confidence >= min_confidence, most confident first.
  std::vector<InducedRule> rules(double min_confidence = 0.5) const;

  const Model& model() const { return model_; }

 private:
  std::unique_ptr<FactIndex> fact_index() const;  // built for each call: a Reasoner may be shared by threads
  ScoreOptions scoring() const;                   // how score() and answer() score: the SearchOptions' index
  Explanation explain(const Atom& atom, int top_proofs, FactIndex& facts) const;
  Model model_;
  SearchOptions options_;
  RuleReadings readings_;  // per rule: its reading and confidence, for Step::reading
};

// A proof as Graphviz `dot` text: one node for the query and one per step,
// labelled with the atom, what proved it, the substitution and the step's
// score; the best proof's nodes and edges are drawn bold and coloured.
std::string to_dot(const Explanation& explanation);
// The explanation as one JSON object (one line).
std::string to_json(const Explanation& explanation);
// Answers as one JSON object: {"query":…,"answers":[{"atom":…,"score":…,"bindings":{…},"proof":…},…]}.
std::string to_json(const std::string& query, const std::vector<Answer>& answers);
// `text` with JSON's escapes, quoted.
std::string json_string(const std::string& text);

// ---- building a KB and a model ---------------------------------------------

// What training reads: the KB (facts and templates) and the true atoms of the
// dev and test files (their symbols get embeddings; they filter rankings).
struct TrainingData {
  KnowledgeBase kb;
  std::vector<Atom> dev, test;              // true atoms
  std::vector<LabelledAtom> dev_labelled;   // a labelled dev file's atoms, true and false (WN11)
};

// From files (.nl/.tsv facts, .nlt/.pl templates; "" for none). The dev and
// test files may be labelled TSV, whose positives count.
TrainingData read_training_data(const std::string& train, const std::string& templates = "",
                                const std::string& dev = "", const std::string& test = "");
// From text in memory, in the .nl and .nlt formats (errors name "facts" and "templates").
TrainingData training_data_from_text(const std::string& facts_nl, const std::string& templates_nlt = "");

// The recipe's prover (see TrainOptions): NTPλ, a goal scored by the mean of
// its proof score and its ComplEx score; k = 1, depth 1.
inline ProverConfig recipe_prover() {
  ProverConfig c;
  c.complex = true;
  c.combine = Combine::Mean;
  return c;
}

struct ModelOptions {
  int dim = 100;
  ProverConfig prover = recipe_prover();
  std::uint64_t seed = 0;
  bool attention = false;  // rule slots attend over the KB predicates (rule_attention.h)
};
// A model with fresh embeddings over the data's KB; the dev and test atoms
// become Model::filter_facts. Throws std::invalid_argument for bad sizes.
Model new_model(TrainingData data, const ModelOptions& options);

}  // namespace ntp
