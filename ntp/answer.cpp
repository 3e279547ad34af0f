// ntp/answer.cpp: Reasoner::answer: the best bindings of a query's variables.
//
// A query such as locatedIn(palau, X) is answered the way the ranking
// protocol ranks: each grounding is scored by the model (proof search, and
// ComplEx for NTPλ), and the best are kept and explained. With one variable
// at one argument, only the constants that can reach the best scores are
// scored (best_constants, eval/ranking.h); otherwise every grounding is. A
// variable that occurs twice gets the same constant at both places. A model
// with mined rules (Model::mined_rules) orders one variable's constants as
// its ranking does: the rules' predictions first, or their confidence added
// to the score with the model's weight.
#include "ntp/reasoner_state.h"

#include "ntp/eval/rule_ranking.h"
#include "ntp/model/mentions.h"
#include "ntp/prover/explain.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ntp {

namespace {

// The query's distinct variables and, per argument, which of them is there (-1: a constant).
struct Variables {
  std::vector<std::string> names;
  std::vector<int> at_argument;
};

Variables variables_of(const Query& q) {
  Variables v;
  for (const std::string& name : q.variables) {
    if (name.empty()) { v.at_argument.push_back(-1); continue; }
    const auto it = std::find(v.names.begin(), v.names.end(), name);
    v.at_argument.push_back(static_cast<int>(it - v.names.begin()));
    if (it == v.names.end()) v.names.push_back(name);
  }
  return v;
}

// Every grounding of the query: the constants of variable j are digit j of
// a number in base C, so groundings come in a fixed order (ties keep it).
std::vector<Atom> groundings(const Query& q, const Variables& v, int constants) {
  long long count = 1;
  for (std::size_t j = 0; j < v.names.size(); ++j) count *= constants;
  std::vector<Atom> out;
  out.reserve(static_cast<std::size_t>(count));
  std::vector<int> value(v.names.size(), 0);
  for (long long n = 0; n < count; ++n) {
    long long rest = n;
    for (std::size_t j = v.names.size(); j-- > 0;) {
      value[j] = static_cast<int>(rest % constants);
      rest /= constants;
    }
    Atom a = q.atom;
    for (std::size_t i = 0; i < a.args.size(); ++i)
      if (v.at_argument[i] >= 0) a.args[i] = value[static_cast<std::size_t>(v.at_argument[i])];
    out.push_back(std::move(a));
  }
  return out;
}

// The argument holding the query's only variable, when it has one variable
// at one argument; -1 otherwise.
int single_slot(const Variables& v) {
  if (v.names.size() != 1) return -1;
  if (std::count(v.at_argument.begin(), v.at_argument.end(), 0) != 1) return -1;
  return static_cast<int>(std::find(v.at_argument.begin(), v.at_argument.end(), 0) - v.at_argument.begin());
}

// A grounding kept as an answer: the atom, the model's key and, with mined
// rules first, the rule predicting it (-1: none).
struct Grounding {
  Atom atom;
  RankKey key;
  int rule = -1;  // index into Model::mined_rules
};

// With the model's mined rules first (a binary atom, one variable): the
// constants the rules predict, by their rules' confidences and then the
// model's key, as the ranking protocol orders them (rank_rules_first), then
// the model's best among the others.
std::vector<Grounding> best_with_rules_first(const Reasoner::State& state, const Query& query, int slot, int top) {
  const Model& model = state.model;
  const std::vector<RulePrediction> predicted = predict_by_rules(state.rule_graph(), model.mined_rules, query.atom, slot);
  std::vector<Atom> atoms(predicted.size(), query.atom);
  for (std::size_t i = 0; i < predicted.size(); ++i) atoms[i].args[static_cast<std::size_t>(slot)] = predicted[i].constant;
  const std::vector<RankKey> keys = state.rank_keys(atoms);
  std::vector<std::size_t> order(predicted.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const int rules = compare_confidences(predicted[a].confidences, predicted[b].confidences);
    return rules > 0 || (rules == 0 && keys[a] > keys[b]);
  });
  std::vector<Grounding> best;
  for (std::size_t i = 0; i < order.size() && best.size() < static_cast<std::size_t>(top); ++i)
    best.push_back({atoms[order[i]], keys[order[i]], static_cast<int>(predicted[order[i]].best_rule)});
  std::vector<char> is_predicted(static_cast<std::size_t>(model.kb.constants.size()), 0);
  for (const RulePrediction& p : predicted) is_predicted[static_cast<std::size_t>(p.constant)] = 1;
  const int more = top + static_cast<int>(predicted.size());
  for (const auto& [c, key] : best_constants(state.candidates(), query.atom, slot, more)) {
    if (best.size() >= static_cast<std::size_t>(top)) break;
    if (is_predicted[static_cast<std::size_t>(c)]) continue;
    Atom a = query.atom;
    a.args[static_cast<std::size_t>(slot)] = c;
    best.push_back({std::move(a), key, -1});
  }
  return best;
}

// With a finite weight on the model's mined rules: every constant scored,
// the confidence of the best rule predicting it, times the weight, added (as
// rank_with_rule_evidence ranks; such weights are chosen on small KBs only).
std::vector<Grounding> best_with_rule_evidence(const Reasoner::State& state, const Query& query, int slot, int top) {
  const Model& model = state.model;
  const std::size_t constants = static_cast<std::size_t>(model.kb.constants.size());
  std::vector<double> best(constants, 0.0);
  std::vector<int> rule(constants, -1);
  for (const RulePrediction& p : predict_by_rules(state.rule_graph(), model.mined_rules, query.atom, slot))
    best[static_cast<std::size_t>(p.constant)] = p.confidences.front(), rule[static_cast<std::size_t>(p.constant)] = static_cast<int>(p.best_rule);
  std::vector<Atom> atoms(constants, query.atom);
  for (std::size_t c = 0; c < constants; ++c) atoms[c].args[static_cast<std::size_t>(slot)] = static_cast<int>(c);
  const std::vector<RankKey> keys = state.rank_keys(atoms);
  std::vector<RankKey> total(constants);
  for (std::size_t c = 0; c < constants; ++c) total[c] = with_rule_evidence(keys[c], model.mined_rule_weight, best[c]);
  std::vector<std::size_t> order(constants);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t keep = std::min(constants, static_cast<std::size_t>(top));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](std::size_t a, std::size_t b) { return total[a] > total[b] || (total[a] == total[b] && a < b); });
  std::vector<Grounding> out;
  for (std::size_t n = 0; n < keep; ++n) out.push_back({atoms[order[n]], keys[order[n]], rule[order[n]]});
  return out;
}

// The best `top` groundings and their keys, best first, ties in grounding order.
std::vector<std::pair<Atom, RankKey>> best_groundings(const Reasoner::State& state, const Query& query,
                                                      const Variables& v, int top) {
  std::vector<std::pair<Atom, RankKey>> best;
  const int slot = single_slot(v);
  if (slot >= 0) {
    for (const auto& [c, key] : best_constants(state.candidates(), query.atom, slot, top)) {
      Atom a = query.atom;
      a.args[static_cast<std::size_t>(slot)] = c;
      best.emplace_back(std::move(a), key);
    }
    return best;
  }
  const std::vector<Atom> atoms = groundings(query, v, state.model.kb.constants.size());
  const std::vector<RankKey> keys = state.rank_keys(atoms);
  std::vector<std::size_t> order(atoms.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t keep = std::min(order.size(), static_cast<std::size_t>(top));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](std::size_t a, std::size_t b) { return keys[a] > keys[b] || (keys[a] == keys[b] && a < b); });
  for (std::size_t n = 0; n < keep; ++n) best.emplace_back(atoms[order[n]], keys[order[n]]);
  return best;
}

}  // namespace

const RelationGraph& Reasoner::State::rule_graph() const {
  std::call_once(rule_graph_built, [&] { graph = std::make_unique<RelationGraph>(model.kb); });
  return *graph;
}

const CandidateFinder& Reasoner::State::candidates() const {
  std::call_once(candidates_built, [&] {
    ScoreOptions options;
    options.facts = facts;
    finder = std::make_unique<CandidateFinder>(model, options);
  });
  return *finder;
}

std::vector<Answer> Reasoner::answer(const std::string& text, int top) const {
  const Model& model = state_->model;
  if (top < 0) throw std::invalid_argument("answer: top must be >= 0, got " + std::to_string(top));
  const std::vector<std::string> unseen = state_->unseen_phrase(text);
  if (!unseen.empty()) return Reasoner(with_patterns(model, unseen), state_->options).answer(text, top);
  const Query query = parse_query(text, model.kb);
  const Variables v = variables_of(query);
  const int constants = model.kb.constants.size();
  long long count = 1;
  for (std::size_t j = 0; j < v.names.size() && count <= kMaxCandidates; ++j) count *= constants;
  if (count > kMaxCandidates)
    throw std::invalid_argument("query " + text + ": " + std::to_string(v.names.size()) + " variables over " +
                                std::to_string(constants) + " constants are more than " +
                                std::to_string(kMaxCandidates) + " groundings to score (bind more arguments)");

  std::vector<Grounding> best;
  const int slot = single_slot(v);
  if (slot >= 0 && !model.mined_rules.empty() && query.atom.args.size() == 2) {
    best = std::isinf(model.mined_rule_weight) ? best_with_rules_first(*state_, query, slot, top)
                                               : best_with_rule_evidence(*state_, query, slot, top);
  } else {
    for (auto& [atom, key] : best_groundings(*state_, query, v, top)) best.push_back({std::move(atom), key, -1});
  }
  std::vector<Answer> answers;
  for (const auto& [atom, key, rule] : best) {
    Answer a;
    if (rule >= 0) {
      a.mined_rule = rule_text(model.kb, model.mined_rules[static_cast<std::size_t>(rule)]);
      a.mined_confidence = model.mined_rules[static_cast<std::size_t>(rule)].confidence;
    }
    for (std::size_t j = 0; j < v.names.size(); ++j) {
      const auto at = std::find(v.at_argument.begin(), v.at_argument.end(), static_cast<int>(j));
      a.bindings.push_back({v.names[j], model.kb.constants.name(atom.args[static_cast<std::size_t>(at - v.at_argument.begin())])});
    }
    a.atom = to_string(model.kb, atom);
    a.score = key.score;
    a.known = model.kb.contains(atom);
    Explanation e = state_->explain(atom, 1);
    if (!e.proofs.empty()) a.best_proof = std::move(e.proofs[0]);
    answers.push_back(std::move(a));
  }
  return answers;
}

}  // namespace ntp
