// ntp/train/rule_choice.cpp: keeping the mined rules that rank dev best (see rule_choice.h).
#include "ntp/train/rule_choice.h"

#include "ntp/eval/rule_ranking.h"
#include "ntp/train/dev_metric.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

namespace ntp {

std::vector<NamedRuleSet> with_and_without_constants(const std::string& name, const std::vector<MinedRule>& mined) {
  std::vector<MinedRule> chains;
  std::copy_if(mined.begin(), mined.end(), std::back_inserter(chains), [](const MinedRule& r) { return !has_constant(r); });
  if (chains.size() == mined.size()) return {{name, mined}};
  return {{name, std::move(chains)}, {name + " and constants", mined}};
}


bool clearly_better(const std::vector<double>& challenger, const std::vector<double>& holder) {
  const std::size_t n = challenger.size();
  if (n != holder.size() || n < 2) throw std::invalid_argument("clearly_better: paired lists of at least two sides");
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) mean += challenger[i] - holder[i];
  mean /= static_cast<double>(n);
  double squares = 0;
  for (std::size_t i = 0; i < n; ++i) squares += (challenger[i] - holder[i] - mean) * (challenger[i] - holder[i] - mean);
  const double standard_error = std::sqrt(squares / static_cast<double>(n - 1) / static_cast<double>(n));
  return mean > kClearMarginInStandardErrors * standard_error && mean > 0;
}

double mean_of(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::size_t first_within_noise_of_best(const std::vector<std::vector<double>>& reciprocals) {
  if (reciprocals.empty()) throw std::invalid_argument("first_within_noise_of_best: no candidate");
  std::size_t best = 0;
  for (std::size_t i = 1; i < reciprocals.size(); ++i)
    if (mean_of(reciprocals[i]) > mean_of(reciprocals[best])) best = i;
  std::size_t first = 0;
  while (clearly_better(reciprocals[best], reciprocals[first])) ++first;
  return first;
}

RuleSetChoice choose_rule_set(const KnowledgeBase& kb, std::vector<NamedRuleSet> sets, const std::vector<Atom>& dev,
                              const std::vector<Atom>& more_known,
                              const std::function<void(std::size_t, std::size_t)>& progress) {
  if (dev.empty()) throw std::invalid_argument("choosing mined rules on dev needs dev atoms");
  if (sets.empty()) throw std::invalid_argument("choosing mined rules on dev needs a set of rules to choose from");
  std::unordered_set<Atom, AtomHash> known(kb.facts.begin(), kb.facts.end());
  known.insert(dev.begin(), dev.end());
  known.insert(more_known.begin(), more_known.end());
  std::vector<std::pair<std::string, double>> measured;
  std::vector<std::vector<double>> reciprocals;
  RuleRankingOptions options;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (progress) {
      const std::size_t before = i * 2 * dev.size(), all = sets.size() * 2 * dev.size();
      options.progress = [&progress, before, all](std::size_t done, std::size_t) { progress(before + done, all); };
    }
    const RankingResult ranked = rank_by_rules(kb, sets[i].second, dev, known, options);
    measured.emplace_back(sets[i].first, ranked.mean_ties.mrr);
    reciprocals.push_back(reciprocal_ranks(ranked));
  }
  const std::size_t kept = first_within_noise_of_best(reciprocals);
  RuleSetChoice choice;
  choice.description = describe_dev_choice(sets[kept].first, "mrr", dev.size(), measured);
  choice.kept = std::move(sets[kept].second);
  return choice;
}

}  // namespace ntp
