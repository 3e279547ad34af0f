// ntp/reasoner.cpp: Reasoner: loading, proving with explanations, scoring
// and reading rules (ntp.h). Answering queries is in answer.cpp.
#include "ntp/reasoner_state.h"
#include "ntp/train/new_model.h"

#include "ntp/eval/completed_confidence.h"
#include "ntp/eval/protocol.h"
#include "ntp/eval/rule_ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/model/complex.h"
#include "ntp/model/mentions.h"
#include "ntp/prover/explain.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ntp {

Reasoner::Reasoner(Model model, SearchOptions options) {
  if (options.k >= 0) model.prover.k_facts = options.k;
  auto state = std::make_shared<State>();
  state->readings = read_rules(model);
  state->model = std::move(model);
  state->options = std::move(options);
  const std::string& kind = state->options.index.empty() ? state->model.prover.index : state->options.index;
  state->facts = make_fact_index(state->model, kind);  // after the move: the index keeps a reference to the model
  state_ = std::move(state);
}

const Model& Reasoner::model() const { return state_->model; }

Reasoner Reasoner::load(const std::string& path, SearchOptions options) {
  return Reasoner(load_model(path), std::move(options));
}

Reasoner Reasoner::from_facts(TrainingData data) {
  ModelOptions untrained;
  untrained.dim = 2;  // the tables are never used: keep them small
  untrained.prover.complex = false;
  untrained.prover.index = "exact";
  return Reasoner(new_model(std::move(data), untrained));
}

Explanation Reasoner::prove(const std::string& atom, int top_proofs) const {
  // A phrase the model never saw is proven by a copy that encodes it from
  // its words (model/mentions.h), with a fact index of its own.
  const std::vector<std::string> unseen = state_->unseen_phrase(atom);
  if (!unseen.empty()) return Reasoner(with_patterns(state_->model, unseen), state_->options).prove(atom, top_proofs);
  return prove(parse_atom(atom, state_->model.kb), top_proofs);
}

std::vector<std::string> Reasoner::State::unseen_phrase(const std::string& text) const {
  if (!has_mentions(model)) return {};
  return unseen_patterns(model, {predicate_name(text)});
}

Explanation Reasoner::prove(const Atom& atom, int top_proofs) const {
  Explanation e = state_->explain(atom, top_proofs);
  const Model& m = state_->model;
  if (m.mined_rules.empty() || atom.args.size() != 2) return e;
  e.mined_weight = m.mined_rule_weight;
  for (const RulePrediction& p : predict_by_rules(state_->rule_graph(), m.mined_rules, atom, 1)) {
    if (p.constant != atom.args[1]) continue;
    e.mined_rule = rule_text(m.kb, m.mined_rules[p.best_rule]);
    e.mined_confidence = p.confidences.front();
    e.mined_rules = static_cast<int>(p.confidences.size());
  }
  return e;
}

Explanation Reasoner::State::explain(const Atom& atom, int top_proofs) const {
  const Prover prover(model, *facts, model.prover);
  const ProofBatch found = prover.search({{atom, -1}}, /*explain=*/true);

  // Best proofs first; equal scores keep the prover's order.
  const std::vector<double> scores = path_scores(model, found);
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });

  Explanation e;
  e.atom = to_string(model.kb, atom);
  e.proofs_searched = order.size();
  e.proof_score = order.empty() ? 0.0 : scores[order[0]];
  e.score = e.proof_score;
  if (model.prover.complex) {
    e.complex_score = complex_scores(model, {atom})[0];
    e.combine = combine_name(model.prover.combine);
    if (model.prover.combine != Combine::Proof) e.score = join_scores(model.prover.combine, e.proof_score, e.complex_score);
  }
  for (std::size_t n = 0; n < order.size() && static_cast<int>(n) < top_proofs; ++n) {
    Proof p = describe_path(model, found.paths[order[n]], atom, {}, readings);
    p.score = scores[order[n]];  // the same min, as the model computes it
    e.proofs.push_back(std::move(p));
  }
  return e;
}

std::vector<double> Reasoner::score(const std::vector<std::string>& atoms) const {
  std::vector<Atom> parsed;
  parsed.reserve(atoms.size());
  for (const std::string& a : atoms) parsed.push_back(parse_atom(a, state_->model.kb));
  return score_ground_atoms(parsed);
}

std::vector<RankKey> Reasoner::State::rank_keys(const std::vector<Atom>& atoms) const {
  ScoreOptions searched;
  searched.facts = facts;
  return ntp::rank_keys(model, atoms, searched);
}

std::vector<double> Reasoner::score_ground_atoms(const std::vector<Atom>& atoms) const {
  std::vector<double> scores;
  scores.reserve(atoms.size());
  for (const RankKey& key : state_->rank_keys(atoms)) scores.push_back(key.score);
  return scores;
}

std::vector<InducedRule> Reasoner::rules(double min_confidence) const {
  return induced_rules(state_->model, min_confidence);
}

std::vector<InducedRule> Reasoner::mined_rules() const {
  const Model& m = state_->model;
  std::vector<InducedRule> rules;
  for (std::size_t i = 0; i < m.mined_rules.size(); ++i) {
    InducedRule r;
    r.rule = static_cast<int>(i);
    r.confidence = m.mined_rules[i].confidence;
    r.text = rule_text(m.kb, m.mined_rules[i]);
    rules.push_back(std::move(r));
  }
  std::stable_sort(rules.begin(), rules.end(), [](const InducedRule& a, const InducedRule& b) { return a.confidence > b.confidence; });
  return rules;
}

JudgedRules Reasoner::judged_rules(const MineOptions& mining,
                                   const std::function<void(std::size_t, std::size_t)>& progress) const {
  const Model& m = state_->model;
  MineOptions chains = mining;
  chains.constant_rules = false;  // the judge reads chain rules (completed_confidence.h)
  const std::vector<MinedRule> mined = mine_rules(m.kb, chains).rules;
  ScoreOptions scoring;
  scoring.facts = state_->facts;
  const std::vector<CompletedConfidence> judged = completed_confidences(m, mined, scoring, kMaxPairsJudged, progress);
  JudgedRules out;
  out.random_belief = random_belief_rate(m, scoring);
  std::vector<JudgedRule>& rules = out.rules;
  rules.resize(mined.size());
  for (std::size_t i = 0; i < mined.size(); ++i) {
    rules[i].text = rule_text(m.kb, mined[i]);
    rules[i].confidence = judged[i].confidence;
    rules[i].counted_confidence = mined[i].confidence;
    rules[i].pairs = judged[i].pairs;
    rules[i].inferred = judged[i].inferred;
  }
  std::stable_sort(rules.begin(), rules.end(), [](const JudgedRule& a, const JudgedRule& b) { return a.confidence > b.confidence; });
  return out;
}

EvalReport Reasoner::evaluate(const EvalRequest& request) const {
  return ntp::evaluate(state_->model, request, request.index.empty() ? state_->facts : nullptr);
}

}  // namespace ntp
