// ntp/mine/miner.h: rules counted on the training facts, AMIE-style
// (mined_rule.h gives the rule shapes and measures).
//
// Two passes over the KB's graph (relation_graph.h), each in parallel (OpenMP):
//   1. support: for every fact h(x, y), every body path of one to three
//      steps from x to y, found by marking y's neighbours and walking from
//      x (to its neighbours, and for chains of three theirs); each distinct
//      body counts once per fact.
//   2. pairs: for each body kept for some head (support, head coverage, at
//      most max_candidates_per_head per head, most support first), every x it
//      starts from is walked to its distinct y, once for all the heads that
//      share the body. A body whose walk would take more than
//      max_body_work edges is walked from a random sample of its x values
//      and its counts scaled up (the rule is marked `estimated`): a body
//      such as gender(X, Z), gender(Y, Z) connects nearly every pair of
//      people (on FB15k-237 no kept body passes the default bound).
// With constant_rules, a third pass counts rules with a constant, such as
// h(X, c) :- r(X, d) (constant_rules.h).
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/mine/mined_rule.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ntp {

struct MineOptions {
  int max_body_atoms = 2;            // 1, 2 or 3 (chains of three: each fact walks its subject's neighbours' edges)
  long long min_support = 2;         // pairs a rule must predict correctly
  double min_head_coverage = 0.001;  // and that share of its head's facts
  double min_confidence = 0.001;     // kept after counting
  int max_candidates_per_head = 200;  // bodies counted per head, most support first
  int rules_per_head = 0;            // kept per head (and as many with a constant), most confident first; 0 = all
  double max_body_work = 2e7;        // edges one body's pair count may walk before it samples
  std::uint64_t seed = 0;            // of those samples
  bool constant_rules = true;        // also h(X, c) :- r(X, d) and h(X, c) :- r(X, Z) (constant_rules.h)
  // At most this many rules with a constant: the least supported go first
  // (FB15k-237 has 14 million of support 2 or more, WN18RR 68 thousand).
  long long max_constant_rules = 1'000'000;
  // Called with (phase, done, total) as work is done, from one thread at a
  // time: phase "support" counts facts, "pairs" counts bodies, "constants"
  // counts the constants whose rules were counted.
  std::function<void(const std::string&, std::size_t, std::size_t)> progress;
  // When set and raised, mining stops at its next check (within a body or a
  // few thousand facts) and returns what it has: MineResult::stopped.
  const std::atomic<bool>* stop = nullptr;
};

struct MineResult {
  std::vector<MinedRule> rules;  // by head predicate, then confidence (highest first)
  bool stopped = false;          // stopped early: rules is empty
  long long candidates = 0;      // (head, body) pairs that passed support and head coverage
  long long bodies = 0;          // distinct bodies whose pairs were counted
  long long estimated = 0;       // rules whose pairs were counted on a sample
  long long with_constant = 0;   // rules with a constant among `rules`
};

// Throws std::invalid_argument for options out of range.
MineResult mine_rules(const KnowledgeBase& kb, const MineOptions& options = {});

// Keeps the first `n` chain rules and the first `n` rules with a constant of
// each head, of rules sorted by head and best first (as mine_rules returns
// them): MineOptions::rules_per_head applied after mining.
void keep_best_per_head(std::vector<MinedRule>& rules, int n);

}  // namespace ntp
