// ntp/prover/proof_state.h: a partial proof inside the search, and the
// symbolic steps that grow it (unify, prove an atom by a fact or a rule).
// Internal to the prover: search.cpp drives these steps, the policies in
// search_policy.h decide which of the states they make are kept.
#pragma once

#include "ntp/prover/prover.h"

#include <limits>
#include <vector>

namespace ntp {

// Terms inside the search: a constant id c >= 0, or a variable v encoded as
// -(v + 1). Variables are numbered per proof state; a rule's variables are
// renamed apart by appending fresh ones each time the rule is applied.
// In State::binding: a variable bound to nothing. Not -1, which is how a term
// names variable 0 (var_term(0)): a variable bound to variable 0 must read
// back as bound.
constexpr int kUnbound = std::numeric_limits<int>::min();
inline bool is_var(int term) { return term < 0; }
inline int var_of(int term) { return -term - 1; }
inline int var_term(int v) { return -v - 1; }

// An atom waiting to be proven: predicate row and argument terms.
struct PendingAtom {
  int predicate_row = 0;
  std::vector<int> args;
  int depth_left = 0;  // rule applications still allowed below this atom
};

// A partial proof: what is left to prove, the substitution so far, and the
// kernels the path has committed to.
struct State {
  int goal = 0;                       // index into the searched goals
  std::vector<PendingAtom> stack;     // front = next atom to prove
  std::vector<int> binding;           // (variables): a term, or kUnbound
  std::vector<Comparison> comparisons;
  double score = 1;                   // best-proof search only: min of the kernels so far
  std::vector<ProofStep> steps;       // explaining searches only
};

// Follows variable bindings until a constant or an unbound variable.
inline int deref(const State& s, int term) {
  while (is_var(term)) {
    const int bound = s.binding[static_cast<std::size_t>(var_of(term))];
    if (bound == kUnbound) return term;
    term = bound;
  }
  return term;
}

// The search's first state for goal number `goal`: its atom (query variables
// become fresh variables) with `depth` rule applications allowed.
State start_state(const Goal& goal, int index, int depth);

// The atom with its bindings applied (-1 for a variable still unbound).
Atom resolved_atom(const State& s, const PendingAtom& a);

// One `or` step: the child of s that proves s's first pending atom with fact
// f, or with rule r (renamed apart, its body pushed in front of the
// remaining atoms). The unification's comparisons are appended to the
// child's; as soft unification never fails, there always is a child.
State apply_fact(const Model& model, const State& s, int f);
State apply_rule(const Model& model, const State& s, int r);

// What decides a state's future: its goal, remaining depth and pending atoms
// (variables renamed in order of appearance). States with equal keys have
// the same continuations.
std::vector<int> merge_key(const State& s);

}  // namespace ntp
