// ntp/prover/proof_state.cpp: unification and the two `or` steps (see
// proof_state.h).
#include "ntp/prover/proof_state.h"

#include "ntp/model/conditional.h"

#include <algorithm>

namespace ntp {

namespace {

// Unifies two argument terms: binds a variable, or records the kernel
// between two constants (soft unification never fails outright).
void unify_terms(State& s, int x, int y) {
  x = deref(s, x);
  y = deref(s, y);
  if (is_var(x)) {
    if (x != y) s.binding[static_cast<std::size_t>(var_of(x))] = y;
  } else if (is_var(y)) {
    s.binding[static_cast<std::size_t>(var_of(y))] = x;
  } else {
    s.comparisons.push_back({Table::Constant, x, y});
  }
}

}  // namespace

State start_state(const Goal& goal, int index, int depth) {
  State s;
  s.goal = index;
  PendingAtom a{goal.atom.predicate, {}, depth};
  for (int arg : goal.atom.args) {
    if (arg >= 0) {
      a.args.push_back(arg);
      continue;
    }
    a.args.push_back(var_term(static_cast<int>(s.binding.size())));  // a query variable
    s.binding.push_back(kUnbound);
  }
  s.stack.push_back(std::move(a));
  return s;
}

Atom resolved_atom(const State& s, const PendingAtom& a) {
  Atom out;
  out.predicate = a.predicate_row;
  for (int t : a.args) {
    const int d = deref(s, t);
    out.args.push_back(is_var(d) ? -1 : d);
  }
  return out;
}

State apply_fact(const Model& model, const State& s, int f) {
  const PendingAtom& atom = s.stack.front();
  const Atom& fact = model.kb.facts[static_cast<std::size_t>(f)];
  State child = s;
  child.stack.erase(child.stack.begin());
  child.comparisons.push_back({Table::Predicate, atom.predicate_row, fact.predicate});
  for (std::size_t i = 0; i < atom.args.size(); ++i) unify_terms(child, atom.args[i], fact.args[i]);
  return child;
}

State apply_rule(const Model& model, const State& s, int r) {
  const PendingAtom& atom = s.stack.front();
  const Rule& rule = model.rules[static_cast<std::size_t>(r)];
  State child = s;
  child.stack.erase(child.stack.begin());
  const int offset = static_cast<int>(child.binding.size());
  child.binding.resize(child.binding.size() + static_cast<std::size_t>(rule.num_variables), kUnbound);
  auto rename = [&](const Term& t) { return t.is_variable ? var_term(offset + t.id) : t.id; };

  if (!rule.conditional) child.comparisons.push_back({Table::Predicate, atom.predicate_row, rule.head.predicate.id});
  for (std::size_t i = 0; i < atom.args.size(); ++i) unify_terms(child, rename(rule.head.args[i]), atom.args[i]);
  std::vector<PendingAtom> body;
  for (std::size_t i = 0; i < rule.body.size(); ++i) {
    // siblings keep their own depth, as in NTP's `and`
    PendingAtom p{body_row(model, rule, i, atom.predicate_row), {}, atom.depth_left - 1};
    for (const Term& t : rule.body[i].args) p.args.push_back(rename(t));
    body.push_back(std::move(p));
  }
  child.stack.insert(child.stack.begin(), body.begin(), body.end());
  return child;
}

std::vector<int> merge_key(const State& s) {
  std::vector<int> key{s.goal};
  std::vector<int> seen;
  for (const PendingAtom& a : s.stack) {
    key.push_back(a.predicate_row);
    key.push_back(a.depth_left);
    key.push_back(static_cast<int>(a.args.size()));
    for (int t : a.args) {
      const int d = deref(s, t);
      if (!is_var(d)) {
        key.push_back(d);
        continue;
      }
      const auto at = std::find(seen.begin(), seen.end(), d);
      key.push_back(-1 - static_cast<int>(at - seen.begin()));
      if (at == seen.end()) seen.push_back(d);
    }
  }
  return key;
}

}  // namespace ntp
