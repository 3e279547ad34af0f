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
//   ntp::RunOptions run;
//   run.model_path = "out.ntp";  // also: a dev metric, the model kept, resumption, a log, a stop flag
//   ntp::train(data, ntp::ModelOptions{}, ntp::TrainOptions{}, run, &std::cerr);
//   // the same settings by name, as `ntp train` takes them: train/option_table.h
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

#include "ntp/eval/request.h"
#include "ntp/kb/build_info.h"
#include "ntp/kb/kb.h"
#include "ntp/kb/parse.h"
#include "ntp/kb/text.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/rules_file.h"
#include "ntp/model/config.h"
#include "ntp/model/induced_rule.h"
#include "ntp/prover/explanation.h"
#include "ntp/train/option_table.h"
#include "ntp/train/options.h"
#include "ntp/train/rule_choice.h"
#include "ntp/train/train.h"
#include "ntp/train/training_data.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ntp {

// How a Reasoner searches; defaults are the model's own settings.
struct SearchOptions {
  int k = -1;             // facts kept per or-step; -1 = the model's
  std::string index;      // fact index kind; "" = the model's
};

struct Model;  // ntp/model/model.h: the embedding tables behind a Reasoner

// A trained model, ready to be asked. Copies share one model, which no call
// changes; its const methods may be called from several threads at once
// (each call builds the fact index it searches: cheap for `table`, seconds
// for `hnsw` on WN11).
class Reasoner {
 public:
  explicit Reasoner(Model model, SearchOptions options = {});
  // Throws std::runtime_error naming `path` if it is missing, damaged or not a model.
  static Reasoner load(const std::string& path, SearchOptions options = {});
  // The data's facts with no trained embeddings (the dev and test atoms
  // filter rankings, as in a trained model): what ranking by mined rules
  // (EvalRequest::rules) needs, without training first. Its scores mean nothing.
  static Reasoner from_facts(TrainingData data);

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
  // The mined rules the model's ranking counts beside its score
  // (Model::mined_rules, kept by training when dev said so), most confident
  // first: each with its text and its confidence on the training facts
  // (rule = its index).
  std::vector<InducedRule> mined_rules() const;
  // The rules the model's training facts support, mined with `mining`
  // (`ntp mine`'s defaults unless told; chain rules only), each judged by the model: its
  // confidence once the facts the model holds true complete the KB
  // (eval/completed_confidence.h), highest first. A rule the data implies
  // rises above its counted confidence; one that merely correlates does not
  // rise above the share of random atoms the model holds true (random_belief).
  // `progress` is called with (atoms scored, atoms to score) as the model judges.
  JudgedRules judged_rules(const MineOptions& mining = {},
                           const std::function<void(std::size_t, std::size_t)>& progress = nullptr) const;
  // One of the evaluation protocols (eval/request.h). Throws
  // std::invalid_argument for a bad name in the request, ParseError for a bad file.
  EvalReport evaluate(const EvalRequest& request) const;

  const Model& model() const;

  struct State;  // ntp/reasoner_state.h

 private:
  std::shared_ptr<const State> state_;
};

// A proof as Graphviz `dot` text: one node for the query and one per step,
// labelled with the atom, what proved it, the substitution and the step's
// score; the best proof's nodes and edges are drawn bold and coloured.
std::string to_dot(const Explanation& explanation);
// The explanation as one JSON object (one line).
std::string to_json(const Explanation& explanation);
// Answers as one JSON object: {"query":…,"answers":[{"atom":…,"score":…,"bindings":{…},"proof":…},…]},
// an answer a mined rule predicted with "mined_rule" and "mined_confidence" before "proof".
std::string to_json(const std::string& query, const std::vector<Answer>& answers);
// Text for reading: the atom and its score, the ComplEx part for NTPλ, then
// each proof's steps, one line each, indented by depth.
std::string to_text(const Explanation& explanation);
// One step of a proof: the goal as asked, what proved it (a rule with its
// reading and confidence), what it bound and its unification score.
std::string to_text(const Step& step);
// Ranked answers, each with its bindings and best proof.
std::string to_text(const std::vector<Answer>& answers);

}  // namespace ntp
