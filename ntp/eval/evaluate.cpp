// ntp/eval/evaluate.cpp: the evaluation protocols (see evaluate.h).
#include "ntp/eval/evaluate.h"

#include "ntp/model/complex.h"
#include "ntp/prover/prover.h"
#include "ntp/index/make_fact_index.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ntp {

namespace {

// Goals are proven in chunks so that the proof batch stays small in memory.
constexpr std::size_t kChunk = 256;

}  // namespace

std::optional<Combine> scoring_rule(const Model& model, ScoreSource source) {
  switch (source) {
    case ScoreSource::Model:
      if (!model.prover.complex) return Combine::Proof;
      if (model.prover.combine == Combine::Complex) return std::nullopt;  // ComplEx alone: no proofs to search
      return model.prover.combine;
    case ScoreSource::ProofOnly: return Combine::Proof;
    case ScoreSource::ComplexOnly: return std::nullopt;
    case ScoreSource::MaxOfBoth: return Combine::Max;
    case ScoreSource::MeanOfBoth: return Combine::Mean;
  }
  return std::nullopt;
}

std::vector<double> score_atoms(const Model& model, const std::vector<Atom>& atoms, const ScoreOptions& options) {
  ScoreOptions scores_only = options;
  scores_only.tie_break = false;
  std::vector<double> scores;
  scores.reserve(atoms.size());
  for (const RankKey& key : rank_keys(model, atoms, scores_only)) scores.push_back(key.score);
  return scores;
}

ScoreOptions with_fact_index(const Model& model, ScoreOptions options) {
  if (!options.facts) options.facts = make_fact_index(model, options.index.empty() ? model.prover.index : options.index);
  return options;
}

std::vector<RankKey> rank_keys(const Model& model, const std::vector<Atom>& atoms, const ScoreOptions& options) {
  return *rank_keys_unless_given_up(model, atoms, options, nullptr);
}

std::optional<std::vector<RankKey>> rank_keys_unless_given_up(const Model& model, const std::vector<Atom>& atoms,
                                                              const ScoreOptions& options,
                                                              const std::function<bool()>& give_up) {
  const std::optional<Combine> rule = scoring_rule(model, options.source);
  if (rule != Combine::Proof && !model.prover.complex)
    throw std::invalid_argument("the model was trained without ComplEx (ntp train --complex)");
  std::vector<RankKey> keys(atoms.size());
  if (!rule) {
    const std::vector<double> link = complex_scores(model, atoms);
    for (std::size_t i = 0; i < atoms.size(); ++i) keys[i].score = link[i];
    return keys;
  }
  const ScoreOptions searched = with_fact_index(model, options);  // built only when proofs are wanted
  Prover prover(model, *searched.facts, model.prover);
  for (std::size_t begin = 0; begin < atoms.size(); begin += kChunk) {
    if (give_up && give_up()) return std::nullopt;
    std::vector<Goal> goals;
    for (std::size_t i = begin; i < std::min(atoms.size(), begin + kChunk); ++i) goals.push_back({atoms[i], -1});
    const GoalScores chunk = score_goals_with_support(model, prover.search(goals));
    for (std::size_t j = 0; j < goals.size(); ++j) {
      keys[begin + j].score = chunk.best[j];
      if (options.tie_break) keys[begin + j].tie_break = chunk.support[j];
    }
  }
  if (rule == Combine::Proof) return keys;  // a plain model, or ComplEx left out of the score
  const std::vector<double> link = complex_scores(model, atoms);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i].score = join_scores(*rule, keys[i].score, link[i]);
  return keys;
}

CountriesAtoms countries_atoms(const Model& model, const std::vector<std::string>& test_countries,
                               const std::vector<std::string>& regions, const std::vector<Atom>& truth) {
  const int located_in = model.kb.predicates.find("locatedIn");
  if (located_in < 0) throw std::invalid_argument("countries protocol: the model has no predicate 'locatedIn'");
  std::unordered_set<Atom, AtomHash> true_facts(truth.begin(), truth.end());
  auto constant = [&](const std::string& name) {
    const int id = model.kb.constants.find(name);
    if (id < 0) throw std::invalid_argument("countries protocol: unknown constant '" + name + "'");
    return id;
  };
  CountriesAtoms out;
  for (const std::string& c : test_countries)
    for (const std::string& r : regions) {
      Atom a{located_in, {constant(c), constant(r)}};
      out.labels.push_back(true_facts.count(a) ? 1 : 0);
      out.atoms.push_back(std::move(a));
    }
  return out;
}

CountriesResult countries_result(const std::vector<RankKey>& keys, const std::vector<int>& labels) {
  CountriesResult result;
  result.auc_pr = average_precision_by_key(keys, labels);
  result.scored = static_cast<int>(keys.size());
  result.positives = static_cast<int>(std::count(labels.begin(), labels.end(), 1));
  return result;
}

CountriesResult evaluate_countries(const Model& model, const std::vector<std::string>& test_countries,
                                   const std::vector<std::string>& regions, const std::vector<Atom>& truth,
                                   const ScoreOptions& options) {
  const CountriesAtoms pool = countries_atoms(model, test_countries, regions, truth);
  return countries_result(rank_keys(model, pool.atoms, options), pool.labels);
}

ClassificationResult evaluate_classification(const Model& model, const std::vector<Atom>& dev,
                                             const std::vector<int>& dev_labels, const std::vector<Atom>& test,
                                             const std::vector<int>& test_labels, const ScoreOptions& options) {
  if (dev.size() != dev_labels.size() || test.size() != test_labels.size())
    throw std::invalid_argument("classification: atoms and labels differ in number");
  const ScoreOptions shared = with_fact_index(model, options);  // one index for both files
  const std::vector<double> dev_scores = score_atoms(model, dev, shared);
  const std::vector<double> test_scores = score_atoms(model, test, shared);
  ClassificationResult r;
  const double global = best_threshold(dev_scores, dev_labels);
  r.accuracy_global = accuracy(test_scores, test_labels, global);
  r.dev_accuracy_global = accuracy(dev_scores, dev_labels, global);

  // Per relation: a threshold from that relation's dev atoms (the global one
  // for a relation absent from dev).
  std::map<int, std::pair<std::vector<double>, std::vector<int>>> dev_by_rel;
  for (std::size_t i = 0; i < dev.size(); ++i) {
    dev_by_rel[dev[i].predicate].first.push_back(dev_scores[i]);
    dev_by_rel[dev[i].predicate].second.push_back(dev_labels[i]);
  }
  std::map<int, double> threshold;
  for (const auto& [rel, data] : dev_by_rel) threshold[rel] = best_threshold(data.first, data.second);
  auto per_relation_accuracy = [&](const std::vector<Atom>& atoms, const std::vector<double>& scores,
                                   const std::vector<int>& labels) {
    std::size_t correct = 0;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      const auto it = threshold.find(atoms[i].predicate);
      const double th = it == threshold.end() ? global : it->second;
      correct += ((scores[i] >= th) == (labels[i] > 0)) ? 1 : 0;
    }
    return atoms.empty() ? 0.0 : static_cast<double>(correct) / static_cast<double>(atoms.size());
  };
  r.accuracy_per_relation = per_relation_accuracy(test, test_scores, test_labels);
  r.dev_accuracy_per_relation = per_relation_accuracy(dev, dev_scores, dev_labels);
  return r;
}

}  // namespace ntp
