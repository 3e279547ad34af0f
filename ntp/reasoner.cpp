// ntp/reasoner.cpp: Reasoner: loading, proving with explanations, scoring
// and reading rules (ntp.h). Answering queries is in answer.cpp.
#include "ntp/model/complex.h"
#include "ntp/prover/explain.h"
#include "ntp/ntp.h"
#include "ntp/index/make_fact_index.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ntp {

Reasoner::Reasoner(Model model, SearchOptions options) : model_(std::move(model)), options_(std::move(options)) {
  if (options_.k >= 0) model_.prover.k_facts = options_.k;
  if (!options_.index.empty()) check_fact_index_kind(options_.index);
  readings_ = read_rules(model_);
}

Reasoner Reasoner::load(const std::string& path, SearchOptions options) {
  return Reasoner(load_model(path), std::move(options));
}

Explanation Reasoner::prove(const std::string& atom, int top_proofs) const {
  return prove(parse_atom(atom, model_.kb), top_proofs);
}

std::unique_ptr<FactIndex> Reasoner::fact_index() const {
  return make_fact_index(model_, options_.index.empty() ? model_.prover.index : options_.index);
}

Explanation Reasoner::prove(const Atom& atom, int top_proofs) const { return explain(atom, top_proofs, *fact_index()); }

Explanation Reasoner::explain(const Atom& atom, int top_proofs, FactIndex& facts) const {
  const Prover prover(model_, facts, model_.prover);
  const ProofBatch found = prover.search({{atom, -1}}, /*explain=*/true);

  // Best proofs first; equal scores keep the prover's order.
  const std::vector<double> scores = path_scores(model_, found);
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });

  Explanation e;
  e.atom = to_string(model_.kb, atom);
  e.proofs_searched = order.size();
  e.proof_score = order.empty() ? 0.0 : scores[order[0]];
  e.score = e.proof_score;
  if (model_.prover.complex) {
    e.complex_score = complex_scores(model_, {atom})[0];
    if (model_.prover.combine != Combine::Proof) e.score = join_scores(model_.prover.combine, e.proof_score, e.complex_score);
  }
  for (std::size_t n = 0; n < order.size() && static_cast<int>(n) < top_proofs; ++n) {
    Proof p = describe_path(model_, found.paths[order[n]], atom, {}, readings_);
    p.score = scores[order[n]];  // the same min, as the model computes it
    e.proofs.push_back(std::move(p));
  }
  return e;
}

std::vector<double> Reasoner::score(const std::vector<std::string>& atoms) const {
  std::vector<Atom> parsed;
  parsed.reserve(atoms.size());
  for (const std::string& a : atoms) parsed.push_back(parse_atom(a, model_.kb));
  return score_ground_atoms(parsed);
}

ScoreOptions Reasoner::scoring() const {
  ScoreOptions o;
  o.index = options_.index;
  return o;
}

std::vector<double> Reasoner::score_ground_atoms(const std::vector<Atom>& atoms) const {
  return score_atoms(model_, atoms, scoring());
}

std::vector<InducedRule> Reasoner::rules(double min_confidence) const { return induced_rules(model_, min_confidence); }

}  // namespace ntp
