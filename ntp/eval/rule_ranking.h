// ntp/eval/rule_ranking.h: filtered ranking with mined rules applied
// symbolically (mine/miner.h): the baseline that a neural prover, which can
// start from those rules, must beat.
//
// A side such as h(s, ?) is answered by every rule with head h: its body is
// walked from s (relation_graph.h; for h(?, o), backward from o), and each
// constant reached is predicted with the rule's confidence. Constants are
// ordered by the confidences of the rules predicting them, aggregated
//   max       as AnyBURL does: by the best rule's confidence, ties broken by
//             the second best, and so on (a constant predicted by more rules
//             wins an otherwise equal comparison);
//   noisy-or  by 1 - prod(1 - confidence);
//   paths     by 1 - prod(1 - confidence * share), a rule's share being
//             the part of its body's paths from the side's known constant
//             that end at the constant ranked (as the path ranking
//             algorithm weighs a path by its random walks, Lao and Cohen
//             2010, here with every path equally likely): a country most
//             of whose neighbours lie in Europe is more likely European
//             than one with a single European neighbour. A rule with a
//             constant tests one constant: its share is 1.
// A constant no rule predicts scores below every predicted one; the true
// constant's rank among the unpredicted is their mean rank, unless a model
// breaks the ties the rules leave (RuleRankingOptions::tie_scores): then
// constants the rules cannot tell apart, predicted alike or not predicted
// at all, are ordered by the model's score (AnyBURL's rules first, an
// embedding model for what they leave open).
#pragma once

#include "ntp/eval/ranking.h"
#include "ntp/mine/mined_rule.h"
#include "ntp/mine/relation_graph.h"

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

namespace ntp {

enum class RuleAggregation { Max, NoisyOr, Paths };
// "max", "noisy-or" or "paths"; throws std::invalid_argument for another name.
RuleAggregation rule_aggregation_from_name(const std::string& name);
std::string rule_aggregation_name(RuleAggregation how);

// The one number the rules say of a constant under `how`, which a model's
// score adds (with_rule_evidence) or which orders constants by itself:
// under max the best rule's confidence (the rest of its list only breaks
// ties), else the aggregate. 0 when no rule predicts it.
inline double rule_evidence(RuleAggregation how, double best_confidence, double noisy_or, double by_paths) {
  return how == RuleAggregation::Paths ? by_paths : how == RuleAggregation::NoisyOr ? noisy_or : best_confidence;
}

struct RuleRankingOptions {
  RuleAggregation aggregation = RuleAggregation::Max;
  // When set: every constant's score at the open argument of `atom` (C
  // values), which orders constants the rules tie. Called from several
  // threads at once.
  std::function<std::vector<double>(const Atom& atom, int open)> tie_scores;
  // Called after each ranked side with (sides done, sides in all), from one thread at a time.
  std::function<void(std::size_t, std::size_t)> progress;
};

// Ranks both sides of every test atom among all of kb's constants, leaving
// out the corruptions in `known` (train ∪ dev ∪ test); rules are walked over
// kb.facts. SideRank::scored counts the constants some rule predicted.
RankingResult rank_by_rules(const KnowledgeBase& kb, const std::vector<MinedRule>& rules,
                            const std::vector<Atom>& test, const std::unordered_set<Atom, AtomHash>& known,
                            const RuleRankingOptions& options = {});

// -1, 0 or 1 as the confidences of the rules predicting one constant, each
// list highest first, rank below, level with or above another's under max
// aggregation: compared best first, a longer list winning an equal prefix.
int compare_confidences(const std::vector<double>& a, const std::vector<double>& b);

// A constant the rules predict at a side's open argument: the confidences
// of the rules that reach it, highest first, and the first of those rules.
struct RulePrediction {
  int constant = 0;
  std::vector<double> confidences;
  std::size_t best_rule = 0;  // index into the rules given
  double noisy_or = 0;        // the noisy-or and paths aggregations' values
  double by_paths = 0;
};
// Every constant predicted at argument `open` of the binary `atom` (its
// other argument fixed), the rules walked over `graph` (the KB's facts),
// best first under max aggregation (ties: lower id first).
std::vector<RulePrediction> predict_by_rules(const RelationGraph& graph, const std::vector<MinedRule>& rules,
                                             const Atom& atom, int open);

// A model's key with the mined rules' evidence: its score plus `weight`
// times what the rules say of the atom (rule_evidence: under max, as
// answers and proofs always add, the best predicting rule's confidence; 0
// if none), its tie-break kept. The one formula ranking, answers and
// proofs use.
inline double score_with_rule_evidence(double score, double weight, double confidence) { return score + weight * confidence; }
inline RankKey with_rule_evidence(const RankKey& key, double weight, double confidence) {
  return {score_with_rule_evidence(key.score, weight, confidence), key.tie_break};
}

// The same ranks with a model after the rules: constants the rules tie
// (predicted alike, or not predicted at all) are ordered by the model's rank
// keys (rank_keys with `scoring`: its score, then its proof support when
// scoring.tie_break). Equal to rank_by_rules with the model's keys as tie
// scores, at the cost of the model's own bounded ranking (evaluate_ranking,
// whose `options` it takes) and of scoring the constants the rules predict.
// Rules are walked over model.kb.facts. `model_alone`, when given, gets the
// model's own ranking of the same sides. When options.give_up ends the
// model's ranking, both results are given_up.
RankingResult rank_rules_first(const Model& model, const std::vector<MinedRule>& rules, const std::vector<Atom>& test,
                               const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& scoring,
                               RuleAggregation aggregation = RuleAggregation::Max, const RankingOptions& options = {},
                               RankingResult* model_alone = nullptr);

// The ranks with the rules' evidence added to the model's score, once for
// each of `weights` (finite, > 0): at a side, constant c scores s(c) + w r(c),
// s its model score and r the confidence of the best rule predicting it
// under max aggregation, else the aggregate (0 if no rule does), equal sums ordered by the rest of the model's key (its proof
// support when scoring.tie_break). Every constant is scored (rank_keys), once
// for all the weights: affordable on KBs of a few thousand constants.
// options.give_up is asked before each side; once it says yes, every result
// is given_up.
std::vector<RankingResult> rank_with_rule_evidence(const Model& model, const std::vector<MinedRule>& rules,
                                                   const std::vector<double>& weights, const std::vector<Atom>& test,
                                                   const std::unordered_set<Atom, AtomHash>& known,
                                                   const ScoreOptions& scoring,
                                                   RuleAggregation aggregation = RuleAggregation::Max,
                                                   const RankingOptions& options = {});

}  // namespace ntp
