// ntp/train/mined_rules_choice.cpp: choosing on dev whether, and how much,
// mined rules count beside the model's score (see mined_rules_choice.h).
#include "ntp/train/mined_rules_choice.h"

#include "ntp/eval/evaluate.h"
#include "ntp/eval/rule_ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/kb/text.h"
#include "ntp/mine/miner.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/rule_choice.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <cstdio>
#include <iterator>
#include <ostream>
#include <stdexcept>

namespace ntp {

bool can_choose_mined_rules(const TrainingData& data) {
  if (data.dev.empty() || !data.dev_labelled.empty()) return false;
  return std::all_of(data.dev.begin(), data.dev.end(), [](const Atom& a) { return a.args.size() == 2; });
}

std::vector<MinedRule> mine_with_bodies_of(const KnowledgeBase& kb, int max_body_atoms, bool constant_rules,
                                           const std::atomic<bool>* stop) {
  MineOptions mine;
  mine.constant_rules = constant_rules;
  mine.stop = stop;
  mine.max_body_atoms = max_body_atoms;
  return mine_rules(kb, mine).rules;
}

namespace {

// Whether chains of three are cheap enough to try: (2R)^3 bodies for R
// relations, few enough or on few enough facts.
bool three_atom_chains_are_cheap(const KnowledgeBase& kb) {
  const long long steps = 2LL * kb.predicates.size(), bodies = steps * steps * steps;
  return bodies <= kMaxThreeAtomBodies || bodies * static_cast<long long>(kb.facts.size()) <= kMaxThreeAtomWork;
}

// The rules to try: chains of three (where cheap) and chains of two (the
// miner's defaults), each without and with the rules with a constant, or the
// one-atom rules alone: the first of these, in this order, that ranks the
// dev facts by itself within dev's noise of the best set (choose_rule_set:
// the longer chains, which predict more of what dev did not ask, unless a
// shorter set is clearly better, and of those the set without constants,
// the smaller, unless the constants clearly help). Ranks the
// `measured` dev atoms only (the whole dev file of a large KB would take
// minutes), the other dev and test atoms filtered as true. Where chains of
// three are tried, the rules with a constant are counted twice, once with
// each chain length (the same rules; seconds on WN18RR).
RuleSetChoice rules_to_try(const TrainingData& data, const std::vector<Atom>& measured, const std::atomic<bool>* stop) {
  std::vector<NamedRuleSet> sets;
  auto add = [&sets](std::vector<NamedRuleSet> more) { std::move(more.begin(), more.end(), std::back_inserter(sets)); };
  if (three_atom_chains_are_cheap(data.kb)) add(with_and_without_constants("chains of three", mine_with_bodies_of(data.kb, 3, true, stop)));
  add(with_and_without_constants("chains", mine_with_bodies_of(data.kb, 2, true, stop)));
  sets.push_back({"one-atom", mine_with_bodies_of(data.kb, 1, false, stop)});
  std::vector<Atom> known = data.dev;
  known.insert(known.end(), data.test.begin(), data.test.end());
  return choose_rule_set(data.kb, std::move(sets), measured, known);
}

// The weights `model` tries: infinity, and the finite ones where scoring
// every constant of a side is cheap: on a small KB, or when the model scores
// with ComplEx alone (one product a constant, no proofs).
std::vector<double> weights_to_try(const Model& model) {
  std::vector<double> weights{std::numeric_limits<double>::infinity()};
  const bool complex_alone = !scoring_rule(model, ScoreSource::Model);
  if (model.kb.constants.size() <= kMaxConstantsForRuleWeights || complex_alone)
    weights.insert(weights.end(), std::begin(kRuleWeights), std::end(kRuleWeights));
  return weights;
}

// One round's rankings: the model alone, then with the rules under each
// weight (infinity first: the rules first); none when a ranking gave up and
// `cut` ended the round (reciprocals_in_rounds).
std::vector<RankingResult> rank_round(const Model& model, const std::vector<MinedRule>& rules,
                                      const std::vector<double>& weights, const std::vector<Atom>& round,
                                      const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& scoring,
                                      const CutAsked& cut) {
  std::vector<RankingResult> each(2);
  each[1] = rank_rules_first(model, rules, round, known, scoring, RuleAggregation::Max, cut.ranking(), &each[0]);
  if (cut.ended(each[1])) return {};
  const std::vector<double> finite(weights.begin() + 1, weights.end());
  if (finite.empty()) return each;
  std::vector<RankingResult> added =
      rank_with_rule_evidence(model, rules, finite, round, known, scoring, RuleAggregation::Max, cut.ranking());
  if (cut.ended(added.front())) return {};
  for (RankingResult& r : added) each.push_back(std::move(r));
  return each;
}

// Ranks `atoms` round by round, with and without the rules, until all are
// done or the limits end it: each side's reciprocal rank, [0] the model
// alone, [1 + w] with weights[w].
std::vector<std::vector<double>> measure_weights(const Model& model, const std::vector<MinedRule>& rules,
                                                 const std::vector<double>& weights, const std::vector<Atom>& atoms,
                                                 const std::unordered_set<Atom, AtomHash>& known,
                                                 const ChoiceLimits& limits, std::ostream* progress,
                                                 MinedRulesChoice& choice) {
  ScoreOptions scoring;
  scoring.facts = make_fact_index(model, "exact");  // as `ntp eval` ranks
  ReciprocalsInRounds gathered = reciprocals_in_rounds(
      atoms, limits, progress, "with and without the rules", 1 + weights.size(),
      [&](const std::vector<Atom>& round, const CutAsked& cut) {
        return rank_round(model, rules, weights, round, known, scoring, cut);
      });
  choice.dev_atoms = gathered.done.atoms;
  choice.over_budget = gathered.done.over_budget;
  choice.stopped = gathered.done.stopped;
  return std::move(gathered.reciprocal);
}

}  // namespace

MinedRulesChoice choose_mined_rules(Model& model, const TrainingData& data, std::size_t max_dev_atoms,
                                    std::ostream* progress, const ChoiceLimits& limits) {
  MinedRulesChoice choice;
  if (!can_choose_mined_rules(data)) return choice;
  const std::vector<Atom> atoms = dev_facts_measured(data, max_dev_atoms);
  RuleSetChoice set = rules_to_try(data, atoms, limits.stop);
  choice.rules = set.kept.size();
  choice.rule_set = set.description;
  // A stop cuts mining short: every process of a group agrees on it before
  // the rounds (a collective call each), whatever its own mining found.
  choice.stopped = stop_asked(limits);
  if (choice.stopped || set.kept.empty()) return choice;
  const std::vector<double> weights = weights_to_try(model);
  const std::vector<std::vector<double>> reciprocal =
      measure_weights(model, set.kept, weights, atoms, filter_set(model, data.dev), limits, progress, choice);
  if (reciprocal[0].empty()) return choice;
  choice.measured = true;
  choice.model_alone = mean_of(reciprocal[0]);
  double best = choice.model_alone;
  for (std::size_t w = 0; w < weights.size(); ++w) {
    choice.weights.emplace_back(weights[w], mean_of(reciprocal[1 + w]));
    if (choice.weights.back().second > best) best = choice.weights.back().second, choice.chosen_weight = weights[w];
  }
  choice.kept = best > choice.model_alone;
  if (choice.kept) model.mined_rules = std::move(set.kept), model.mined_rule_weight = choice.chosen_weight;
  return choice;
}

double dev_metric_with_kept_rules(const Model& model, const TrainingData& data, std::size_t max_dev_atoms) {
  ScoreOptions scoring;
  scoring.facts = make_fact_index(model, "exact");  // as `ntp eval` ranks
  if (!data.dev_labelled.empty() || data.dev.empty()) return dev_metric(model, data, scoring, max_dev_atoms);
  return dev_ranking_with_kept_rules(model, data, scoring, max_dev_atoms).mean_ties.mrr;
}

RankingResult dev_ranking_with_kept_rules(const Model& model, const TrainingData& data, const ScoreOptions& scoring,
                                          std::size_t max_dev_atoms) {
  if (!data.dev_labelled.empty() || data.dev.empty())
    throw std::invalid_argument("dev_ranking_with_kept_rules: needs ranked dev facts");
  return rank_with_kept_rules(model, data, dev_facts_measured(data, max_dev_atoms), filter_set(model, data.dev), scoring);
}

RankingResult rank_with_kept_rules(const Model& model, const TrainingData& data, const std::vector<Atom>& atoms,
                                   const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& scoring,
                                   const RankingOptions& options) {
  if (model.mined_rules.empty() || !can_choose_mined_rules(data))
    return evaluate_ranking(model, atoms, known, scoring, options);
  const double w = model.mined_rule_weight;
  const RuleAggregation max = RuleAggregation::Max;
  return std::isinf(w) ? rank_rules_first(model, model.mined_rules, atoms, known, scoring, max, options)
                       : rank_with_rule_evidence(model, model.mined_rules, {w}, atoms, known, scoring, max, options).front();
}

std::vector<MinedRule> mine_rules_like(const KnowledgeBase& kb, const std::vector<MinedRule>& chosen) {
  std::size_t longest = 1;
  for (const MinedRule& r : chosen) longest = std::max(longest, r.body.size());
  const bool constants = std::any_of(chosen.begin(), chosen.end(), [](const MinedRule& r) { return has_constant(r); });
  return mine_with_bodies_of(kb, static_cast<int>(longest), constants, nullptr);
}

std::string describe(const MinedRulesChoice& choice) {
  if (!choice.measured) return "not measured";
  auto weight_name = [](double w) { return std::isinf(w) ? std::string("rules first") : "weight " + format_number(w); };
  char figure[32];
  std::snprintf(figure, sizeof figure, "%.4f", choice.model_alone);
  std::string text = (choice.kept ? "kept, " + weight_name(choice.chosen_weight) : std::string("not kept")) + ": " +
                     std::to_string(choice.rules) + " mined rules, " + choice.rule_set + "; dev mrr on " +
                     atoms_text(choice.dev_atoms) + ": model alone " + figure;
  for (const auto& [w, mrr] : choice.weights) {
    std::snprintf(figure, sizeof figure, "%.4f", mrr);
    text += ", " + weight_name(w) + " " + figure;
  }
  if (choice.over_budget) text += " (the time budget ran out)";
  if (choice.stopped) text += " (stopped)";
  return text;
}

}  // namespace ntp
