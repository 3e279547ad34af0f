// ntp/eval/rule_keys.cpp: atoms ordered by the rules predicting them (see rule_keys.h).
#include "ntp/eval/rule_keys.h"

#include "ntp/mine/relation_graph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

namespace ntp {

std::vector<RulePrediction> atom_predictions(const KnowledgeBase& kb, const std::vector<MinedRule>& rules,
                                             const std::vector<Atom>& atoms) {
  for (const Atom& a : atoms)
    if (a.args.size() != 2) throw std::invalid_argument("rules predict binary atoms only, got " + to_string(kb, a));
  const RelationGraph graph(kb);
  // One walk per (predicate, subject): Countries asks five regions of each country.
  std::map<std::pair<int, int>, std::vector<RulePrediction>> walked;
  std::vector<RulePrediction> out(atoms.size());
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    const std::pair<int, int> side{atoms[i].predicate, atoms[i].args[0]};
    auto it = walked.find(side);
    if (it == walked.end()) it = walked.emplace(side, predict_by_rules(graph, rules, atoms[i], 1)).first;
    for (const RulePrediction& p : it->second)
      if (p.constant == atoms[i].args[1]) out[i] = p;
  }
  return out;
}

namespace {

// rule_evidence of a prediction, its confidences highest first.
double evidence_of(const RulePrediction& p, RuleAggregation how) {
  return rule_evidence(how, p.confidences.empty() ? 0.0 : p.confidences.front(), p.noisy_or, p.by_paths);
}

// Keys 0, 1, 2, ... by the order `below` sorts the atoms into, equal atoms
// (neither below the other) sharing one key.
template <class Below>
std::vector<RankKey> ordinal_keys(std::size_t n, Below below) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), below);
  std::vector<RankKey> keys(n);
  double level = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (below(order[i - 1], order[i])) level += 1;
    keys[order[i]].score = level;
  }
  return keys;
}

}  // namespace

std::vector<RankKey> rule_evidence_keys(const KnowledgeBase& kb, const std::vector<MinedRule>& rules,
                                        const std::vector<Atom>& atoms, const RuleEvidence& e) {
  const bool with_model = !e.model_keys.empty();
  if (with_model && e.model_keys.size() != atoms.size())
    throw std::invalid_argument("rule evidence: " + std::to_string(e.model_keys.size()) + " model keys for " +
                                std::to_string(atoms.size()) + " atoms");
  if (with_model && !(e.weight > 0)) throw std::invalid_argument("rule evidence: the model's weight must be > 0");
  const std::vector<RulePrediction> predicted = atom_predictions(kb, rules, atoms);
  const auto conf = [&](std::size_t i) -> const std::vector<double>& { return predicted[i].confidences; };
  std::vector<RankKey> keys(atoms.size());
  if (with_model && std::isfinite(e.weight)) {
    for (std::size_t i = 0; i < atoms.size(); ++i)
      keys[i] = with_rule_evidence(e.model_keys[i], e.weight, evidence_of(predicted[i], e.aggregation));
    return keys;
  }
  const bool one_value = e.aggregation != RuleAggregation::Max;  // else a list an atom
  std::vector<double> value(one_value ? atoms.size() : 0);
  for (std::size_t i = 0; i < value.size(); ++i) value[i] = evidence_of(predicted[i], e.aggregation);
  if (!with_model && one_value) {
    for (std::size_t i = 0; i < atoms.size(); ++i) keys[i].score = value[i];
    return keys;
  }
  return ordinal_keys(atoms.size(), [&](std::size_t a, std::size_t b) {
    const int by_rules = one_value ? (value[a] < value[b] ? -1 : value[a] > value[b] ? 1 : 0)
                                   : compare_confidences(conf(a), conf(b));
    if (by_rules != 0 || !with_model) return by_rules < 0;
    return e.model_keys[b] > e.model_keys[a];
  });
}

}  // namespace ntp
