// ntp/answer.cpp: Reasoner::answer: the best bindings of a query's variables.
//
// A query such as locatedIn(palau, X) is answered the way the ranking
// protocol ranks: every constant is put in for X, each grounding is scored by
// the model (proof search, and ComplEx for NTPλ), and the best are kept and
// explained. A variable that occurs twice gets the same constant at both places.
#include "ntp/reasoner_state.h"

#include "ntp/prover/explain.h"

#include <algorithm>
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

}  // namespace

std::vector<Answer> Reasoner::answer(const std::string& text, int top) const {
  const Model& model = state_->model;
  if (top < 0) throw std::invalid_argument("answer: top must be >= 0, got " + std::to_string(top));
  const Query query = parse_query(text, model.kb);
  const Variables v = variables_of(query);
  const int constants = model.kb.constants.size();
  long long count = 1;
  for (std::size_t j = 0; j < v.names.size() && count <= kMaxCandidates; ++j) count *= constants;
  if (count > kMaxCandidates)
    throw std::invalid_argument("query " + text + ": " + std::to_string(v.names.size()) + " variables over " +
                                std::to_string(constants) + " constants are more than " +
                                std::to_string(kMaxCandidates) + " groundings to score (bind more arguments)");

  const std::vector<Atom> atoms = groundings(query, v, constants);
  // Ordered as the ranking protocol orders them: by score, equal scores by
  // proof support, then by constant order.
  const std::vector<RankKey> keys = state_->rank_keys(atoms);
  std::vector<std::size_t> order(atoms.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t keep = std::min(order.size(), static_cast<std::size_t>(top));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](std::size_t a, std::size_t b) { return keys[a] > keys[b] || (keys[a] == keys[b] && a < b); });

  std::vector<Answer> answers;
  for (std::size_t n = 0; n < keep; ++n) {
    const Atom& atom = atoms[order[n]];
    Answer a;
    for (std::size_t j = 0; j < v.names.size(); ++j) {
      const auto at = std::find(v.at_argument.begin(), v.at_argument.end(), static_cast<int>(j));
      a.bindings.push_back({v.names[j], model.kb.constants.name(atom.args[static_cast<std::size_t>(at - v.at_argument.begin())])});
    }
    a.atom = to_string(model.kb, atom);
    a.score = keys[order[n]].score;
    a.known = model.kb.contains(atom);
    Explanation e = state_->explain(atom, 1);
    if (!e.proofs.empty()) a.best_proof = std::move(e.proofs[0]);
    answers.push_back(std::move(a));
  }
  return answers;
}

}  // namespace ntp
