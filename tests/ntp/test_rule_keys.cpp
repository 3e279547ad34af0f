// tests/ntp/test_rule_keys.cpp: atoms ordered against one another by the
// mined rules predicting them (Countries' AUC-PR), against a reference that
// checks every rule on every atom.
#include <doctest/doctest.h>

#include "kb_from_text.h"
#include "rule_reference.h"
#include "ntp/eval/evaluate.h"
#include "ntp/eval/rule_keys.h"
#include "ntp/mine/miner.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

// The confidences of the rules whose body connects the atom's arguments, highest first.
std::vector<double> reference_confidences(const ntp::KnowledgeBase& kb, const std::vector<ntp::MinedRule>& rules,
                                          const ntp::Atom& a) {
  std::vector<double> out;
  for (const ntp::MinedRule& r : rules)
    if (r.head == a.predicate && body_connects(kb, r, a.args[0], a.args[1])) out.push_back(r.confidence);
  std::sort(out.rbegin(), out.rend());
  return out;
}

// The paths aggregate of an atom: 1 - prod(1 - confidence * share) over
// the rules predicting it, each share counted by brute force from the
// subject (the Countries side: the region open).
double reference_paths(const ntp::KnowledgeBase& kb, const std::vector<ntp::MinedRule>& rules, const ntp::Atom& a) {
  double none = 1;
  for (const ntp::MinedRule& r : rules)
    if (r.head == a.predicate && body_connects(kb, r, a.args[0], a.args[1]))
      none *= 1 - r.confidence * path_share(kb, r, a.args[0], a.args[1], 1);
  return 1 - none;
}

// The confidences of the rules predicting each atom, highest first.
std::vector<std::vector<double>> predicting_confidences(const ntp::KnowledgeBase& kb,
                                                        const std::vector<ntp::MinedRule>& rules,
                                                        const std::vector<ntp::Atom>& atoms) {
  std::vector<std::vector<double>> out;
  for (ntp::RulePrediction& p : ntp::atom_predictions(kb, rules, atoms)) out.push_back(std::move(p.confidences));
  return out;
}

double noisy_or(const std::vector<double>& c) {
  double none = 1;
  for (double v : c) none *= 1 - v;
  return 1 - none;
}

// -1, 0 or 1: a below, level with or above b.
template <class T>
int order(const T& a, const T& b) { return a < b ? -1 : b < a ? 1 : 0; }
int order_keys(const ntp::RankKey& a, const ntp::RankKey& b) { return b > a ? -1 : a > b ? 1 : 0; }

// Every ground atom of the KB's predicates, some of them facts.
std::vector<ntp::Atom> all_atoms(const ntp::KnowledgeBase& kb) {
  std::vector<ntp::Atom> atoms;
  for (int p = 0; p < kb.predicates.size(); ++p)
    for (int s = 0; s < kb.constants.size(); ++s)
      for (int o = 0; o < kb.constants.size(); ++o) atoms.push_back({p, {s, o}});
  return atoms;
}

// The keys of `atoms` under `how`: by the rules alone, the rules first with
// the model's keys after them, and the rules' evidence added to the model's
// keys with weight 0.5.
struct KeysThreeWays {
  std::vector<ntp::RankKey> alone, first, beside;
};
KeysThreeWays keys_three_ways(const ntp::KnowledgeBase& kb, const std::vector<ntp::MinedRule>& rules,
                              const std::vector<ntp::Atom>& atoms, ntp::RuleAggregation how,
                              const std::vector<ntp::RankKey>& model) {
  ntp::RuleEvidence alone, first, beside;
  alone.aggregation = first.aggregation = beside.aggregation = how;
  first.model_keys = beside.model_keys = model;
  first.weight = std::numeric_limits<double>::infinity();
  beside.weight = 0.5;
  return {ntp::rule_evidence_keys(kb, rules, atoms, alone), ntp::rule_evidence_keys(kb, rules, atoms, first),
          ntp::rule_evidence_keys(kb, rules, atoms, beside)};
}

}  // namespace

TEST_CASE("rule_evidence_keys orders atoms as the reference does: rules alone, rules first, rules beside a model") {
  int predicted = 0, tied_by_rules = 0;
  for (unsigned seed = 0; seed < 8; ++seed) {
    CAPTURE(seed);
    std::vector<ntp::Atom> held_out;
    const ntp::KnowledgeBase kb = random_split(seed, 8, 40, 5, held_out);
    const auto rules = mine_every_rule(kb, seed % 2 == 0 ? 3 : 2, seed % 3 == 1);  // a third with rules with a constant
    REQUIRE(!rules.empty());
    const std::vector<ntp::Atom> atoms = all_atoms(kb);
    const auto conf = predicting_confidences(kb, rules, atoms);
    std::vector<ntp::RankKey> model(atoms.size());
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      REQUIRE(conf[i] == reference_confidences(kb, rules, atoms[i]));
      predicted += conf[i].empty() ? 0 : 1;
      model[i] = {static_cast<double>((atoms[i].args[0] * 7 + atoms[i].args[1] * 3 + atoms[i].predicate) % 5) / 4, 0};
    }
    const KeysThreeWays by_max = keys_three_ways(kb, rules, atoms, ntp::RuleAggregation::Max, model);
    const auto& k_alone = by_max.alone;
    const auto& k_first = by_max.first;
    const auto& k_beside = by_max.beside;
    const auto k_noisy = keys_three_ways(kb, rules, atoms, ntp::RuleAggregation::NoisyOr, model).alone;
    for (std::size_t a = 0; a < atoms.size(); a += 3)
      for (std::size_t b = 0; b < atoms.size(); b += 5) {
        const int lists = ntp::compare_confidences(conf[a], conf[b]);
        CHECK(order_keys(k_alone[a], k_alone[b]) == lists);
        CHECK(order_keys(k_noisy[a], k_noisy[b]) == order(noisy_or(conf[a]), noisy_or(conf[b])));
        CHECK(order_keys(k_first[a], k_first[b]) == (lists != 0 ? lists : order_keys(model[a], model[b])));
        tied_by_rules += lists == 0 && order_keys(model[a], model[b]) != 0 ? 1 : 0;
        const double best_a = conf[a].empty() ? 0 : conf[a][0], best_b = conf[b].empty() ? 0 : conf[b][0];
        CHECK(order_keys(k_beside[a], k_beside[b]) == order(model[a].score + 0.5 * best_a, model[b].score + 0.5 * best_b));
      }
  }
  CHECK(predicted > 50);        // the rules predict many atoms ...
  CHECK(tied_by_rules > 100);   // ... and leave many pairs for the model to order
}

TEST_CASE("rule_evidence_keys under paths: the aggregate alone, first with the model's keys, or added to them") {
  int compared = 0;
  for (unsigned seed = 0; seed < 6; ++seed) {
    CAPTURE(seed);
    std::vector<ntp::Atom> held_out;
    const ntp::KnowledgeBase kb = random_split(seed + 40, 8, 40, 5, held_out);
    const auto rules = mine_every_rule(kb, seed % 2 == 0 ? 3 : 2, seed % 3 == 1);
    REQUIRE(!rules.empty());
    const std::vector<ntp::Atom> atoms = all_atoms(kb);
    std::vector<double> value(atoms.size());
    std::vector<ntp::RankKey> model(atoms.size());
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      value[i] = reference_paths(kb, rules, atoms[i]);
      model[i] = {static_cast<double>((atoms[i].args[0] * 5 + atoms[i].args[1] + atoms[i].predicate) % 4) / 3, 0};
    }
    const KeysThreeWays keys = keys_three_ways(kb, rules, atoms, ntp::RuleAggregation::Paths, model);
    const auto& k_alone = keys.alone;
    const auto& k_first = keys.first;
    const auto& k_beside = keys.beside;
    for (std::size_t a = 0; a < atoms.size(); a += 3)
      for (std::size_t b = 0; b < atoms.size(); b += 5) {
        // Products taken in another order may differ in the last bit: pairs
        // the reference cannot tell apart beyond rounding are left out.
        if (std::abs(value[a] - value[b]) < 1e-9 && value[a] != value[b]) continue;
        const int by_paths = value[a] == value[b] ? 0 : order(value[a], value[b]);
        CHECK(order_keys(k_alone[a], k_alone[b]) == by_paths);
        CHECK(order_keys(k_first[a], k_first[b]) == (by_paths != 0 ? by_paths : order_keys(model[a], model[b])));
        const double sum_a = model[a].score + 0.5 * value[a], sum_b = model[b].score + 0.5 * value[b];
        if (std::abs(sum_a - sum_b) > 1e-9) CHECK(order_keys(k_beside[a], k_beside[b]) == order(sum_a, sum_b));
        compared += by_paths != 0;
      }
  }
  CHECK(compared > 200);  // the aggregate tells many pairs apart
}

TEST_CASE("Countries by rules: a region reached through a neighbour's subregion; no rule, no evidence") {
  // a and b are neighbours; b's subregion s lies in region r1; c has no neighbour.
  const auto kb = kb_from_text(
      "neighborOf(a, b). neighborOf(b, a). locatedIn(b, s). locatedIn(s, r1). locatedIn(d, s). locatedIn(d, r1). "
      "neighborOf(d, b). neighborOf(b, d). locatedIn(e, t). locatedIn(t, r2). locatedIn(c, t).");
  ntp::Model model;
  model.kb = kb;
  const auto rules = mine_every_rule(kb, 3);
  const int located_in = kb.predicates.find("locatedIn");
  const ntp::CountriesAtoms pool = ntp::countries_atoms(model, {"a"}, {"r1", "r2"}, {{located_in, {kb.constants.find("a"), kb.constants.find("r1")}}});
  REQUIRE(pool.labels == std::vector<int>{1, 0});
  const auto conf = predicting_confidences(kb, rules, pool.atoms);
  CHECK(!conf[0].empty());  // neighborOf(a, b), locatedIn(b, s), locatedIn(s, r1)
  CHECK(conf[1].empty());   // nothing leads from a to r2
  const auto keys = ntp::rule_evidence_keys(kb, rules, pool.atoms, {});
  CHECK(ntp::countries_result(keys, pool.labels).auc_pr == 1);
  ntp::RuleEvidence bad;
  bad.model_keys = {{0, 0}};
  CHECK_THROWS_AS(ntp::rule_evidence_keys(kb, rules, pool.atoms, bad), std::invalid_argument);  // one key for two atoms
}
