// ntp/train/mined_rules_choice.h: mined rules beside a trained model's score,
// and how much they weigh, chosen on dev.
//
// After training, the rules the training facts support are mined
// (mine/miner.h at its defaults, chains of two; chains of three on a KB of
// few relations; each without and with the rules with a constant; or the
// one-atom rules alone: the first of these that ranks the dev facts by
// itself within dev's noise of the best set, rule_choice.h), and the dev facts the combine choice
// measures (at most kCombineChoiceDevAtoms) are ranked by the model alone and
// with the rules' evidence (eval/rule_ranking.h): first, the model ordering
// what they tie (weight infinity, at the cost of the model's bounded
// ranking), and, on KBs of at most kMaxConstantsForRuleWeights constants
// (every constant is scored), added to the model's score with each of
// kRuleWeights. The best of these goes into the model (Model::mined_rules,
// mined_rule_weight) when it ranks dev better than the model alone; `ntp
// eval` then ranks with it, and its --score names the neural parts alone.
#pragma once

#include "ntp/eval/ranking.h"
#include "ntp/mine/mined_rule.h"
#include "ntp/model/model.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/training_data.h"

#include <atomic>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ntp {

// The finite weights tried, and the largest KB they are tried on by a model
// whose score has proofs in it (every constant of a dev side scored); a
// model scored by ComplEx alone tries them at any size.
constexpr double kRuleWeights[] = {0.5, 1, 2};
constexpr int kMaxConstantsForRuleWeights = 2000;
// Chains of three are tried beside chains of two and one-atom rules on KBs
// whose three-atom bodies are at most this many ((2R)^3, R relations: R <= 12).
// WN18RR's 11 relations mine them in about 10 s and rank its dev facts better
// with them (docs/RESULTS.md); Countries' two need them for S3. Nations' 55
// relations would take minutes and gigabytes, for a worse dev ranking.
constexpr long long kMaxThreeAtomBodies = 16384;
// Or on small KBs: at most this many bodies times facts. Countries with its
// facts partly stated in text (21 predicates: 2 relations, 19 phrases, 1,063
// facts) mines them in 0.1 s; Kinship (25 relations, 8.5k facts) and every
// larger set stay out.
constexpr long long kMaxThreeAtomWork = 100'000'000;

struct MinedRulesChoice {
  bool measured = false;   // false: no dev facts to rank, or nothing mined
  bool kept = false;       // the rules went into the model
  std::size_t rules = 0;   // how many were tried
  std::string rule_set;    // which set (choose_rule_set's description)
  double model_alone = -1;                         // dev MRR of the model alone
  std::vector<std::pair<double, double>> weights;  // (weight, dev MRR) of each weight tried; infinity: rules first
  double chosen_weight = 0;                        // when kept
  std::size_t dev_atoms = 0;                       // dev atoms ranked
  bool over_budget = false, stopped = false;       // fewer atoms than asked: the limits ended it
};

// Whether `data` has what the choice needs: ranked (not labelled) dev facts, all binary.
bool can_choose_mined_rules(const TrainingData& data);

// The rules of `kb` mined at the miner's defaults but for bodies of at most
// `max_body_atoms` and, unless `constant_rules`, no rules with a constant.
std::vector<MinedRule> mine_with_bodies_of(const KnowledgeBase& kb, int max_body_atoms, bool constant_rules,
                                           const std::atomic<bool>* stop = nullptr);

// Mines, measures and, when the rules help, sets model.mined_rules and
// model.mined_rule_weight. Ranks in rounds (rank_in_rounds) within
// `limits`; `progress` (may be null) gets a line every few seconds.
MinedRulesChoice choose_mined_rules(Model& model, const TrainingData& data,
                                    std::size_t max_dev_atoms = kCombineChoiceDevAtoms, std::ostream* progress = nullptr,
                                    const ChoiceLimits& limits = {});

// The dev metric of `model` as `ntp eval` ranks with it: by its kept mined
// rules with their weight (model.mined_rules, max aggregation) when it
// keeps any, else by the model alone; on at most `max_dev_atoms` dev facts,
// with the exact fact index. What a choice between finished runs compares.
double dev_metric_with_kept_rules(const Model& model, const TrainingData& data,
                                  std::size_t max_dev_atoms = kCombineChoiceDevAtoms);
// The ranking behind that metric, side by side, for ranked dev facts (not a
// labelled file, not empty), scored as `scoring` says (its fact index: the
// exact one, as `ntp eval` ranks): what a choice needs to tell noise from a gain.
RankingResult dev_ranking_with_kept_rules(const Model& model, const TrainingData& data, const ScoreOptions& scoring,
                                          std::size_t max_dev_atoms = kCombineChoiceDevAtoms);
// The same ranking of `atoms` (binary, true unless in `known`), for a
// choice that ranks dev in rounds (rank_in_rounds); `data` says whether the
// kept rules apply (can_choose_mined_rules), as above; `options` as for
// evaluate_ranking (a round gives up through them).
RankingResult rank_with_kept_rules(const Model& model, const TrainingData& data, const std::vector<Atom>& atoms,
                                   const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& scoring,
                                   const RankingOptions& options = {});

// The rules of `kb` mined as the choice mined `chosen` (its bodies' length):
// the rules a model trained on more facts than the choice saw keeps.
std::vector<MinedRule> mine_rules_like(const KnowledgeBase& kb, const std::vector<MinedRule>& chosen);

// "kept with weight 2: 4,778 mined rules, chains (...); dev mrr: model alone 0.7644, rules first 0.6781, 0.5 0.7970, ..."
std::string describe(const MinedRulesChoice& choice);

}  // namespace ntp
