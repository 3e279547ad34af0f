// ntp/eval/evaluate.h: the three evaluation protocols of NTP.md, on a model.
//
//   countries       AUC-PR over score(locatedIn(c, r)) for every test country c
//                   and region r, labelled by the ground-truth facts.
//   ranking         filtered MRR and HITS@1/3/10: each test triple is ranked
//                   against all its subject and all its object corruptions
//                   that are not known true; ties get the mean rank
//                   (ranking.h: only the corruptions that can matter are scored).
//   classification  WN11 accuracy with decision thresholds chosen on dev,
//                   per relation and globally.
#pragma once

#include "ntp/eval/metrics.h"
#include "ntp/index/fact_index.h"
#include "ntp/model/model.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace ntp {

// What an evaluation scores with. An NTPλ model's score joins its proof and
// ComplEx scores by the model's Combine rule; the two parts can be measured
// alone, to see which does the work, or joined by the other rule.
enum class ScoreSource { Model, ProofOnly, ComplexOnly, MaxOfBoth, MeanOfBoth };

struct ScoreOptions {
  std::string index;  // overrides the model's fact index kind when not empty
  ScoreSource source = ScoreSource::Model;
  // Rankings (ranking, countries) order exactly equal scores by the proofs'
  // support (GoalScores); false: by the score alone, ties at the mean rank.
  bool tie_break = true;
  // The fact index to search, built on the model; when empty, each call
  // builds one of `index`'s kind. Sharing one spares a rebuild (seconds for
  // HNSW on WN11): a Reasoner shares its own, a protocol scoring twice one.
  std::shared_ptr<FactIndex> facts = nullptr;
};

// The rule `source` scores `model` with: a plain model's only rule is Proof,
// Model means the model's own rule; nothing for ComplexOnly.
std::optional<Combine> scoring_rule(const Model& model, ScoreSource source);

// Scores of ground atoms (no masking: test atoms are not in the KB). Throws
// std::invalid_argument for ComplexOnly, MaxOfBoth or MeanOfBoth on a model
// trained without ComplEx.
std::vector<double> score_atoms(const Model& model, const std::vector<Atom>& atoms, const ScoreOptions& options = {});
// The keys rankings order atoms by: the score of score_atoms and, when
// options.tie_break, the proof support (0 for ComplexOnly, which has no proofs).
std::vector<RankKey> rank_keys(const Model& model, const std::vector<Atom>& atoms, const ScoreOptions& options = {});
// rank_keys, asking `give_up` (when given) before each chunk of 256 atoms
// it proves; nothing once it says yes: what a ranking that may be cut short
// scores with (RankingOptions::give_up).
std::optional<std::vector<RankKey>> rank_keys_unless_given_up(const Model& model, const std::vector<Atom>& atoms,
                                                              const ScoreOptions& options,
                                                              const std::function<bool()>& give_up);
// `options` with options.facts set: as given, or built of options.index's kind.
ScoreOptions with_fact_index(const Model& model, ScoreOptions options);

struct CountriesResult {
  double auc_pr = 0;  // average precision, in [0, 1]
  int positives = 0, scored = 0;
};
CountriesResult evaluate_countries(const Model& model, const std::vector<std::string>& test_countries,
                                   const std::vector<std::string>& regions, const std::vector<Atom>& truth,
                                   const ScoreOptions& options = {});
// The protocol in two halves, for keys of another kind (rule_keys.h): the
// atoms locatedIn(c, r) for every test country c and region r with their
// labels, and the average precision of one key per atom.
struct CountriesAtoms {
  std::vector<Atom> atoms;
  std::vector<int> labels;  // 1 for an atom of `truth`
};
CountriesAtoms countries_atoms(const Model& model, const std::vector<std::string>& test_countries,
                               const std::vector<std::string>& regions, const std::vector<Atom>& truth);
CountriesResult countries_result(const std::vector<RankKey>& keys, const std::vector<int>& labels);

// The atoms a filtered ranking leaves out: the model's facts, the dev and
// test facts it saw in training (Model::filter_facts), `test`, and the true
// atoms of `more_files` (read_true_atoms; unknown symbols are refused).
std::unordered_set<Atom, AtomHash> filter_set(const Model& model, const std::vector<Atom>& test,
                                              const std::vector<std::string>& more_files = {});
// The Countries truth file's facts about symbols the model knows (it may name
// countries the model never saw; those facts cannot be asked about).
std::vector<Atom> read_truth(const std::string& path, const Model& model);
// The predicates a ranking's test file and filter files name that the model
// does not know, in order of first appearance (read through a copy of its KB).
std::vector<std::string> new_predicate_names(const Model& model, const std::string& test,
                                             const std::vector<std::string>& filter);

struct ClassificationResult {
  double accuracy_per_relation = 0;  // test accuracy, one threshold per relation (from dev)
  double accuracy_global = 0;        // test accuracy, one threshold for all (from dev)
  double dev_accuracy_per_relation = 0;
  double dev_accuracy_global = 0;
};
ClassificationResult evaluate_classification(const Model& model, const std::vector<Atom>& dev,
                                             const std::vector<int>& dev_labels, const std::vector<Atom>& test,
                                             const std::vector<int>& test_labels, const ScoreOptions& options = {});

}  // namespace ntp
