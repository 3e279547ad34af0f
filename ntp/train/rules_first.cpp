// ntp/train/rules_first.cpp: choosing on dev whether mined rules rank
// before the model's score (see rules_first.h).
#include "ntp/train/rules_first.h"

#include "ntp/eval/rule_ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/kb/text.h"
#include "ntp/mine/miner.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/rule_choice.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <ostream>

namespace ntp {

bool can_choose_rules_first(const TrainingData& data) {
  if (data.dev.empty() || !data.dev_labelled.empty()) return false;
  return std::all_of(data.dev.begin(), data.dev.end(), [](const Atom& a) { return a.args.size() == 2; });
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The rules to try: those mined at the defaults, or the one-atom rules
// alone, whichever ranks the dev facts better by itself.
RuleSetChoice rules_to_try(const TrainingData& data) {
  MineOptions mine;
  std::vector<NamedRuleSet> sets{{"chains", mine_rules(data.kb, mine).rules}};
  mine.max_body_atoms = 1;
  sets.push_back({"one-atom", mine_rules(data.kb, mine).rules});
  return choose_rule_set(data.kb, std::move(sets), data.dev, data.test);
}

// Sums of reciprocal ranks, over the sides ranked so far.
struct Reciprocals {
  double alone = 0, with_rules = 0;
  std::size_t sides = 0;
};

// Ranks `atoms` round by round, with and without the rules, until all are
// done or the limits end it.
Reciprocals rank_in_rounds(const Model& model, const std::vector<MinedRule>& rules, const std::vector<Atom>& atoms,
                           const std::unordered_set<Atom, AtomHash>& known, const ChoiceLimits& limits,
                           std::ostream* progress, RulesFirstChoice& choice) {
  ScoreOptions scoring;
  scoring.facts = make_fact_index(model, "exact");  // as `ntp eval` ranks
  Reciprocals sum;
  const Clock::time_point start = Clock::now();
  Clock::time_point shown = start;
  std::size_t done = 0;
  while (done < atoms.size()) {
    if (limits.stop != nullptr && limits.stop->load()) { choice.stopped = true; break; }
    if (done > 0 && limits.seconds > 0 && seconds_since(start) > limits.seconds) { choice.over_budget = true; break; }
    const std::vector<Atom> round(atoms.begin() + static_cast<std::ptrdiff_t>(done),
                                  atoms.begin() + static_cast<std::ptrdiff_t>(std::min(atoms.size(), done + kCombineChoiceRound)));
    RankingResult alone;
    const RankingResult first = rank_rules_first(model, rules, round, known, scoring, RuleAggregation::Max, {}, &alone);
    for (const SideRank& side : alone.ranks) sum.alone += 1 / side.mean;
    for (const SideRank& side : first.ranks) sum.with_rules += 1 / side.mean;
    sum.sides += first.ranks.size();
    done += round.size();
    if (progress && (done == atoms.size() || seconds_since(shown) > 10)) {
      shown = Clock::now();
      *progress << "  ranked " << done << "/" << atoms.size() << " dev atoms with and without the rules  elapsed "
                << format_duration(seconds_since(start)) << std::endl;
    }
  }
  choice.dev_atoms = done;
  return sum;
}

}  // namespace

RulesFirstChoice choose_rules_first(Model& model, const TrainingData& data, std::size_t max_dev_atoms,
                                    std::ostream* progress, const ChoiceLimits& limits) {
  RulesFirstChoice choice;
  if (!can_choose_rules_first(data)) return choice;
  RuleSetChoice set = rules_to_try(data);
  choice.rules = set.kept.size();
  choice.rule_set = set.description;
  if (set.kept.empty()) return choice;
  const std::vector<Atom> atoms = dev_facts_measured(data, max_dev_atoms);
  const Reciprocals sum = rank_in_rounds(model, set.kept, atoms, filter_set(model, data.dev), limits, progress, choice);
  if (sum.sides == 0) return choice;
  choice.measured = true;
  choice.model_alone = sum.alone / static_cast<double>(sum.sides);
  choice.with_rules = sum.with_rules / static_cast<double>(sum.sides);
  choice.kept = choice.with_rules > choice.model_alone;
  if (choice.kept) model.rules_first = std::move(set.kept);
  return choice;
}

std::string describe(const RulesFirstChoice& choice) {
  if (!choice.measured) return "not measured";
  char line[160];
  std::snprintf(line, sizeof line, "dev mrr %.4f with the rules first, %.4f for the model alone, on %zu atoms",
                choice.with_rules, choice.model_alone, choice.dev_atoms);
  std::string text = std::string(choice.kept ? "kept" : "not kept") + ": " + std::to_string(choice.rules) +
                     " mined rules, " + choice.rule_set + "; " + line;
  if (choice.over_budget) text += " (the time budget ran out)";
  if (choice.stopped) text += " (stopped)";
  return text;
}

}  // namespace ntp
