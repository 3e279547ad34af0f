// tests/ntp/reference_prover.h: the oracle for ntp::Prover. The paper's
// or/and/unify written out as directly as possible, in plain doubles:
//
//   or(G, d, S)  = for every fact F: unify(F, G, S);
//                  if d > 0, for every rule H :- B of G's arity:
//                  and(B, d - 1, unify(H, G, S)) with the rule renamed apart
//   and([], d, S) = [S];   and(A:As, d, S) = for every S' in or(A, d, S): and(As, d, S')
//   score(G)     = max over the proofs of G of min over their kernels (0 if none)
//
// `d` is the number of rule applications still allowed below an atom, so
// facts are always allowed and the atoms of one body share the depth their
// rule left them. Unlike the library it has no fact index, no batching, no
// pruning and no tape: it enumerates every proof, so it only suits tiny KBs.
// What it shares with the library on purpose: the Model (KB, rules, tables),
// the masking convention (a goal's masked facts are out of every step of its
// proofs) and the Comparison record, so that proofs can be compared.
#pragma once

#include "ntp/prover/prover.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace reference {

// k(a, b) = exp(-sqrt(clamp(‖θa - θb‖², kMinSquaredDistance, kMaxSquaredDistance))):
// the one place the reference writes the kernel.
inline double kernel(const ad::Matrix& table, int a, int b) {
  const double squared = (table.row(a) - table.row(b)).squaredNorm();
  return std::exp(-std::sqrt(std::clamp(squared, ad::kMinSquaredDistance, ad::kMaxSquaredDistance)));
}

inline double kernel_of(const ntp::Model& model, const ntp::Comparison& c) {
  return kernel(c.table == ntp::Table::Predicate ? model.predicates.value : model.constants.value, c.a, c.b);
}

// One `or` step of a proof: the fact or rule used, the atom it proved (with
// the bindings it had right after unifying; -1 for a variable still free) and
// how many rule applications lie above it.
struct Step {
  bool by_rule = false;
  int id = -1;
  ntp::Atom atom;
  int depth = 0;
};

// A proof state, and once every atom is proven, a proof.
struct Proof {
  std::vector<std::optional<ntp::Term>> binding;  // (variables): what each is bound to, if anything
  std::vector<ntp::Comparison> comparisons;       // every kernel of the proof, in step order
  std::vector<Step> steps;                        // depth first, left to right
};

// min over a proof's kernels.
inline double proof_score(const ntp::Model& model, const Proof& proof) {
  double score = 1;
  for (const ntp::Comparison& c : proof.comparisons) score = std::min(score, kernel_of(model, c));
  return score;
}

// An atom inside the search: predicate row and terms (variables are numbered
// per proof).
struct SearchAtom {
  int predicate_row = 0;
  std::vector<ntp::Term> args;
};

// The search for one goal: the KB without the goal's masked facts, and the
// depth it started with.
class Prover {
 public:
  Prover(const ntp::Model& model, int depth, ntp::MaskedFacts masked)
      : model_(model), depth_(depth), masked_(std::move(masked)) {}

  // Every proof of `atom` (an argument of -1 is a variable of its own).
  std::vector<Proof> proofs(const ntp::Atom& atom) const {
    Proof start;
    SearchAtom g{atom.predicate, {}};
    for (int arg : atom.args) {
      if (arg >= 0) { g.args.push_back(constant(arg)); continue; }
      g.args.push_back(variable(static_cast<int>(start.binding.size())));
      start.binding.emplace_back();
    }
    return prove_or(g, depth_, start);
  }

 private:
  static ntp::Term constant(int id) { return {false, id}; }
  static ntp::Term variable(int id) { return {true, id}; }

  // Follows bindings until a constant or a free variable.
  static ntp::Term walk(const Proof& s, ntp::Term t) {
    while (t.is_variable && s.binding[static_cast<std::size_t>(t.id)]) t = *s.binding[static_cast<std::size_t>(t.id)];
    return t;
  }

  // A free variable binds to the other term; two constants add a kernel.
  static void unify(Proof& s, ntp::Term x, ntp::Term y) {
    x = walk(s, x);
    y = walk(s, y);
    if (x.is_variable) {
      if (!(y.is_variable && y.id == x.id)) s.binding[static_cast<std::size_t>(x.id)] = y;
    } else if (y.is_variable) {
      s.binding[static_cast<std::size_t>(y.id)] = x;
    } else {
      s.comparisons.push_back({ntp::Table::Constant, x.id, y.id});
    }
  }

  // The goal as the step that proved it sees it: constants where bound.
  static ntp::Atom resolved(const Proof& s, const SearchAtom& g) {
    ntp::Atom a{g.predicate_row, {}};
    for (ntp::Term t : g.args) {
      const ntp::Term w = walk(s, t);
      a.args.push_back(w.is_variable ? -1 : w.id);
    }
    return a;
  }

  std::vector<Proof> prove_or(const SearchAtom& g, int depth, const Proof& s) const {
    std::vector<Proof> out;
    const std::vector<ntp::Atom>& facts = model_.kb.facts;
    for (std::size_t f = 0; f < facts.size(); ++f) {
      if (facts[f].args.size() != g.args.size() || masked_.contains(static_cast<int>(f))) continue;
      Proof t = s;
      t.comparisons.push_back({ntp::Table::Predicate, g.predicate_row, facts[f].predicate});
      for (std::size_t i = 0; i < g.args.size(); ++i) unify(t, g.args[i], constant(facts[f].args[i]));
      t.steps.push_back({false, static_cast<int>(f), resolved(t, g), depth_ - depth});
      out.push_back(std::move(t));
    }
    if (depth == 0) return out;
    for (std::size_t r = 0; r < model_.rules.size(); ++r) {
      const ntp::Rule& rule = model_.rules[r];
      if (rule.head.args.size() != g.args.size()) continue;
      Proof t = s;
      const int offset = static_cast<int>(t.binding.size());  // the rule's variables, renamed apart
      t.binding.resize(t.binding.size() + static_cast<std::size_t>(rule.num_variables));
      auto rename = [&](ntp::Term x) { return x.is_variable ? variable(offset + x.id) : x; };
      if (!rule.conditional)  // a conditional rule has no head kernel
        t.comparisons.push_back({ntp::Table::Predicate, g.predicate_row, rule.head.predicate.id});
      for (std::size_t i = 0; i < g.args.size(); ++i) unify(t, rename(rule.head.args[i]), g.args[i]);
      t.steps.push_back({true, static_cast<int>(r), resolved(t, g), depth_ - depth});
      std::vector<SearchAtom> body;
      for (const ntp::RuleAtom& b : rule.body) {
        body.push_back({body_predicate(rule, b, g.predicate_row), {}});
        for (ntp::Term x : b.args) body.back().args.push_back(rename(x));
      }
      for (Proof& p : prove_and(body, 0, depth - 1, t)) out.push_back(std::move(p));
    }
    return out;
  }

  // A body atom's predicate row: its own, or for a conditional rule's slot
  // the row that holds that slot conditioned on the goal's row.
  int body_predicate(const ntp::Rule& rule, const ntp::RuleAtom& b, int goal_row) const {
    if (!rule.conditional || b.predicate.id < model_.num_kb_predicates) return b.predicate.id;
    const std::uint64_t key = (static_cast<std::uint64_t>(b.predicate.id) << 32) | static_cast<std::uint32_t>(goal_row);
    return model_.conditioning.row_of.at(key);
  }

  // Proves body[first..] one atom after the other, each at `depth`.
  std::vector<Proof> prove_and(const std::vector<SearchAtom>& body, std::size_t first, int depth, const Proof& s) const {
    if (first == body.size()) return {s};
    std::vector<Proof> out;
    for (const Proof& t : prove_or(body[first], depth, s))
      for (Proof& p : prove_and(body, first + 1, depth, t)) out.push_back(std::move(p));
    return out;
  }

  const ntp::Model& model_;
  int depth_;
  ntp::MaskedFacts masked_;
};

inline std::vector<Proof> proofs(const ntp::Model& model, int depth, const ntp::Goal& goal) {
  return Prover(model, depth, goal.masked).proofs(goal.atom);
}

// max over the goal's proofs of min over their kernels; 0 without a proof.
inline double score(const ntp::Model& model, int depth, const ntp::Goal& goal) {
  double best = 0;
  for (const Proof& p : proofs(model, depth, goal)) best = std::max(best, proof_score(model, p));
  return best;
}

}  // namespace reference
