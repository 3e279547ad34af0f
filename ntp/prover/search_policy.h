// ntp/prover/search_policy.h: the two ways the search keeps what it grows.
//
// The search (prover.cpp) is one or-expansion: each round, every live state
// proves its first pending atom by each selected fact and rule. A policy
// decides which states are grown and which children are kept:
//   KeepPaths   every path, each scored later on the tape (top-k search),
//               optionally recording each step (explanations);
//   BestProof   only each goal's best path, by branch and bound (exhaustive
//               search, k = 0).
// Both offer the same five calls, which the search makes in this order:
//   worth_expanding(s)      grow state s this round?
//   worth_trying(s, fact)   build the child proving s's atom by this fact?
//   keep(child, step)       a child made by `step`: keep, merge or drop it
//   next_round()            the states to grow in the next round
//   take_done()             at the end: each goal's finished states
#pragma once

#include "autodiff/ops.h"
#include "ntp/kb/kb.h"
#include "ntp/prover/proof_state.h"

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ntp {

// How a child state was made: its parent's first pending atom, proven by
// fact or rule `id` with `depth` rule applications above it. The step's
// comparisons are the child's from `first_comparison` on.
struct StepMade {
  const PendingAtom& atom;
  bool by_rule;
  int id;
  int depth;
  std::size_t first_comparison;
};

// Every path is kept; a finished one (nothing left to prove) is done.
class KeepPaths {
 public:
  KeepPaths(std::size_t goals, bool record_steps) : done_(goals), record_steps_(record_steps) {}

  bool worth_expanding(const State&) const { return true; }
  bool worth_trying(const State&, const Atom&) const { return true; }
  void keep(State&& child, const StepMade& step) {
    if (record_steps_) {
      const std::vector<Comparison> made(child.comparisons.begin() + static_cast<std::ptrdiff_t>(step.first_comparison),
                                         child.comparisons.end());
      child.steps.push_back({resolved_atom(child, step.atom), step.by_rule, step.id, step.depth, made});
    }
    const std::size_t g = static_cast<std::size_t>(child.goal);
    (child.stack.empty() ? done_[g] : next_).push_back(std::move(child));
  }
  std::vector<State> next_round() { return std::exchange(next_, {}); }
  std::vector<std::vector<State>> take_done() { return std::move(done_); }

 private:
  std::vector<std::vector<State>> done_;  // (goals): finished paths
  std::vector<State> next_;
  bool record_steps_;
};

// Kernels between every pair of predicate rows and of constants, from the
// current embeddings: branch and bound scores states as they grow.
struct KernelTables {
  Eigen::MatrixXd predicate, constant;
  explicit KernelTables(const Model& m) : predicate(table(m.predicates.value)), constant(table(m.constants.value)) {}
  double operator()(const Comparison& c) const {
    return c.table == Table::Predicate ? predicate(c.a, c.b) : constant(c.a, c.b);
  }
  static Eigen::MatrixXd table(const ad::Matrix& x) {
    Eigen::MatrixXd sq = -2.0 * x * x.transpose();
    sq.colwise() += x.rowwise().squaredNorm();
    sq.rowwise() += x.rowwise().squaredNorm().transpose();
    return sq.unaryExpr([](double s) { return ad::rbf_of_squared_distance(s); });
  }
};

// Exhaustive NTP (k_facts = 0) does not build every proof path: a query's
// score and its gradient (max and min route it to one path) are those of
// its best path, which branch and bound finds exactly. A state's score (the
// min of its kernels) can only fall as it grows, so states are scored as they
// grow, equivalent states (merge_key) merged keeping the better, and any
// state or child that cannot beat its goal's best finished proof dropped.
class BestProof {
 public:
  BestProof(std::size_t goals, const KernelTables& kernels) : kernels_(kernels), best_(goals, 0.0), done_(goals) {}

  bool worth_expanding(const State& s) const { return s.score > best_of(s); }
  // Whether the child by this fact could beat the goal's best proof; scored
  // without building it.
  bool worth_trying(const State& s, const Atom& fact) const { return fact_step_score(s, fact) > best_of(s); }
  void keep(State&& child, const StepMade& step) {
    for (std::size_t i = step.first_comparison; i < child.comparisons.size(); ++i)
      child.score = std::min(child.score, kernels_(child.comparisons[i]));
    const std::size_t g = static_cast<std::size_t>(child.goal);
    if (child.score <= best_[g]) return;
    if (child.stack.empty()) {  // the goal's best proof so far
      best_[g] = child.score;
      done_[g].clear();
      done_[g].push_back(std::move(child));
      return;
    }
    auto [it, added] = merged_.emplace(merge_key(child), next_.size());
    if (added) next_.push_back(std::move(child));
    else if (child.score > next_[it->second].score) next_[it->second] = std::move(child);
  }
  // Best-scoring states first, so that the bound tightens early.
  std::vector<State> next_round() {
    std::stable_sort(next_.begin(), next_.end(), [](const State& a, const State& b) { return a.score > b.score; });
    merged_.clear();
    return std::exchange(next_, {});
  }
  std::vector<std::vector<State>> take_done() { return std::move(done_); }

 private:
  double best_of(const State& s) const { return best_[static_cast<std::size_t>(s.goal)]; }

  // The score apply_fact would give: variables of the atom bind to the
  // fact's constants (a variable repeated in the atom is then compared).
  double fact_step_score(const State& s, const Atom& fact) const {
    const PendingAtom& atom = s.stack.front();
    double score = std::min(s.score, kernels_.predicate(atom.predicate_row, fact.predicate));
    std::pair<int, int> local[8];  // variable -> constant bound by this step
    int bound = 0;
    for (std::size_t i = 0; i < atom.args.size(); ++i) {
      int term = deref(s, atom.args[i]);
      for (int j = 0; j < bound && is_var(term); ++j)
        if (local[j].first == term) term = local[j].second;
      if (!is_var(term)) score = std::min(score, kernels_.constant(term, fact.args[i]));
      else if (bound < 8) local[bound++] = {term, fact.args[i]};
      else throw std::invalid_argument("atoms of more than 8 arguments are not supported");
    }
    return score;
  }

  const KernelTables& kernels_;
  std::vector<double> best_;              // (goals): score of each goal's best finished path
  std::vector<std::vector<State>> done_;  // (goals): that path, if any
  std::vector<State> next_;
  std::unordered_map<std::vector<int>, std::size_t, VectorHash> merged_;  // merge_key -> index in next_
};

}  // namespace ntp
