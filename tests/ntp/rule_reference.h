// tests/ntp/rule_reference.h: whether a mined rule's body connects two
// constants, checked by brute force over every constant: the reference that
// the rule walks of eval/rule_ranking.h and eval/rule_keys.h are tested
// against; and the random KBs they are tested on.
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/mine/mined_rule.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/relation_graph.h"

#include <random>
#include <string>
#include <vector>

namespace {

inline bool holds(const ntp::KnowledgeBase& kb, int step, int a, int b) {
  const int r = ntp::step_relation(step);
  return ntp::is_backward(step) ? kb.contains({r, {b, a}}) : kb.contains({r, {a, b}});
}

// Whether a rule with a constant predicts head(x, y): the constant at its
// place, and the body holding for V, the other argument.
inline bool constant_rule_predicts(const ntp::KnowledgeBase& kb, const ntp::MinedRule& r, int x, int y) {
  const int c = r.constant_arg == 1 ? y : x, v = r.constant_arg == 1 ? x : y;
  if (c != r.head_constant || v == c) return false;
  for (int z = 0; z < kb.constants.size(); ++z)
    if ((r.body_constant < 0 || z == r.body_constant) && holds(kb, r.body[0], v, z)) return true;
  return false;
}

// Whether the rule predicts head(x, y): its body leads from x to y through
// distinct constants (or, with a constant, as above).
inline bool body_connects(const ntp::KnowledgeBase& kb, const ntp::MinedRule& r, int x, int y) {
  if (ntp::has_constant(r)) return constant_rule_predicts(kb, r, x, y);
  if (x == y) return false;
  if (r.body.size() == 1) return holds(kb, r.body[0], x, y);
  const int n = kb.constants.size();
  for (int z = 0; z < n; ++z) {
    if (z == x || z == y || !holds(kb, r.body[0], x, z)) continue;
    if (r.body.size() == 2 && holds(kb, r.body[1], z, y)) return true;
    for (int w = 0; w < n && r.body.size() == 3; ++w)
      if (w != x && w != y && w != z && holds(kb, r.body[1], z, w) && holds(kb, r.body[2], w, y)) return true;
  }
  return false;
}

// How many paths of the rule's body lead from x to y through distinct
// constants; a rule with a constant, 1 if it predicts head(x, y).
inline int body_paths(const ntp::KnowledgeBase& kb, const ntp::MinedRule& r, int x, int y) {
  if (ntp::has_constant(r)) return constant_rule_predicts(kb, r, x, y) ? 1 : 0;
  if (x == y) return 0;
  if (r.body.size() == 1) return holds(kb, r.body[0], x, y) ? 1 : 0;
  const int n = kb.constants.size();
  int paths = 0;
  for (int z = 0; z < n; ++z) {
    if (z == x || z == y || !holds(kb, r.body[0], x, z)) continue;
    if (r.body.size() == 2) paths += holds(kb, r.body[1], z, y);
    for (int w = 0; w < n && r.body.size() == 3; ++w)
      paths += w != x && w != y && w != z && holds(kb, r.body[1], z, w) && holds(kb, r.body[2], w, y);
  }
  return paths;
}

// The share of the rule's paths from the side's known constant (x when y is
// open, else y) that reach the open one; 1 for a rule with a constant that
// predicts head(x, y).
inline double path_share(const ntp::KnowledgeBase& kb, const ntp::MinedRule& r, int x, int y, int open) {
  const int here = body_paths(kb, r, x, y);
  if (here == 0 || ntp::has_constant(r)) return here;
  int all = 0;
  for (int c = 0; c < kb.constants.size(); ++c) all += open == 1 ? body_paths(kb, r, x, c) : body_paths(kb, r, c, y);
  return static_cast<double>(here) / all;
}

// A random KB of 3 predicates over `constants` constants from `draws` random
// atoms, every `every`-th new one held out into `held_out` instead.
inline ntp::KnowledgeBase random_split(unsigned seed, int constants, int draws, int every, std::vector<ntp::Atom>& held_out) {
  std::mt19937 rng(seed);
  ntp::KnowledgeBase kb;
  for (int p = 0; p < 3; ++p) kb.predicates.intern("p" + std::to_string(p));
  for (int c = 0; c < constants; ++c) kb.constants.intern("c" + std::to_string(c));
  std::uniform_int_distribution<int> pick_p(0, 2), pick_c(0, constants - 1);
  for (int i = 0; i < draws; ++i) {
    const ntp::Atom a{pick_p(rng), {pick_c(rng), pick_c(rng)}};
    if (i % every == 0 && !kb.contains(a)) held_out.push_back(a);
    else kb.add_fact(a);
  }
  return kb;
}

// Every rule of at most `max_body_atoms` body atoms (and, with
// `constant_rules`, every rule with a constant) that predicts one fact or more.
inline std::vector<ntp::MinedRule> mine_every_rule(const ntp::KnowledgeBase& kb, int max_body_atoms, bool constant_rules = false) {
  ntp::MineOptions mine;
  mine.min_support = 1;
  mine.min_head_coverage = 0;
  mine.max_body_atoms = max_body_atoms;
  mine.constant_rules = constant_rules;
  return ntp::mine_rules(kb, mine).rules;
}

}  // namespace
