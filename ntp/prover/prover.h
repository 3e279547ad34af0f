// ntp/prover/prover.h: backward chaining with soft unification, in two phases.
//
// 1. search() is symbolic. It runs Prolog-style or/and over a batch of goals,
//    breadth first: every live proof state proves its first pending atom by
//    `or`, i.e. by each selected fact (FactIndex: the k nearest, or all) and
//    each selected rule (while depth allows). Unifying two ground symbols does
//    not decide anything here; it records a Comparison (a kernel to compute
//    later), while a variable simply binds. Finished states are proof paths.
//    All the states of one round that ask the same kind of question share one
//    batched nearest-neighbour search. (prover.cpp; proof_state.h holds the
//    states and steps, search_policy.h which states are kept.)
// 2. score_goals() is numeric and differentiable. It computes every distinct
//    comparison's kernel on the tape in one gather + rbf_kernel per table,
//    takes the min along each path and the max over each goal's paths:
//        score(goal) = max_paths min_{(a,b) in path} exp(-‖θ_a - θ_b‖).
//    (scoring.cpp.)
// Which paths exist depends on the embeddings only through the selection,
// which is not differentiated (as in NTP 2.0): gradients flow through the
// kernels of the selected paths.
#pragma once

#include "autodiff/ops.h"
#include "ntp/model/conditional.h"
#include "ntp/model/model.h"
#include "ntp/index/fact_index.h"

#include <cstdint>
#include <vector>

namespace ntp {

enum class Table : std::uint8_t { Predicate, Constant };

// A kernel to compute: between rows a and b of one embedding table.
struct Comparison {
  Table table = Table::Predicate;
  int a = 0, b = 0;
};

// A goal to prove: a ground atom (an argument of -1 is a variable, allowed
// in queries), and the facts masked out of its proofs (training: the fact
// being proven; -1 or {} for none).
struct Goal {
  Atom atom;
  MaskedFacts masked;
};

// One `or` step of a path, kept for explanations: the atom proven (with the
// bindings it received), and the fact or rule that proved it.
struct ProofStep {
  Atom atom;                    // predicate is a row of Model::predicates
  bool by_rule = false;
  int id = -1;                  // fact id or rule id
  int depth = 0;                // rule applications above this step
  std::vector<Comparison> comparisons;
};

struct ProofPath {
  std::vector<int> comparisons;  // indices into ProofBatch::comparisons
  std::vector<ProofStep> steps;  // only when searched with explain = true
};

struct ProofBatch {
  std::vector<Comparison> comparisons;  // distinct, in first-use order
  std::vector<ProofPath> paths;         // grouped by goal, in goal order
  std::vector<ad::Index> path_counts;   // (goals): paths of each goal (may be 0)
};

class Prover {
 public:
  // `config` is usually model.prover; the fact index must be built on `model`.
  Prover(const Model& model, FactIndex& facts, ProverConfig config);
  // Goals are searched in parallel chunks (OpenMP) unless explaining.
  ProofBatch search(const std::vector<Goal>& goals, bool explain = false) const;
  const ProverConfig& config() const { return config_; }

 private:
  const Model& model_;
  FactIndex& facts_;
  ProverConfig config_;
};

// (goals, 1): the proof score of each goal; 0 for a goal without any path.
// With a temperature > 0 the max over a goal's paths is soft
// (ad::segment_soft_max), so that every path gets gradient: training uses
// it to explore (TrainOptions::explore); the score then sits below the max.
ad::Var score_goals(ad::Tape& tape, Model& model, const ProofBatch& batch, double temperature = 0);
// The same, reading the predicate rows from `predicates`, a table already on
// `tape` (a training step computes its conditioned rows before the search,
// train/step.h); it must hold every predicate row the batch compares.
ad::Var score_goals(ad::Tape& tape, Model& model, const ProofBatch& batch, double temperature,
                    const PartialTable& predicates);

// The same numbers without a tape (evaluation): plain loops over the paths.
std::vector<double> score_goals(const Model& model, const ProofBatch& batch);
// Evaluation's view of each goal: its score (the max over paths, as above)
// and its proof support, the sum over its paths of the product of each
// path's kernels. The min lets one comparison decide a path, so atoms often
// tie exactly: every object corruption of p(a, b) whose nearest fact is
// p(c, ·) scores k(a, c), and every path through a weak rule scores that
// rule's own kernel, whatever the constants. The product still sees how well
// the other symbols matched, and the sum how many paths there are.
// Rankings use the support only to order exact ties (RankKey), so the
// method's scores and meaning are unchanged.
// Exhaustive search (k = 0) keeps only each goal's best path (branch and
// bound), so there the support looks at that path alone.
struct GoalScores {
  std::vector<double> best;     // (goals)
  std::vector<double> support;  // (goals)
};
GoalScores score_goals_with_support(const Model& model, const ProofBatch& batch);
// The score of each path (min of its kernels), in ProofBatch::paths order.
std::vector<double> path_scores(const Model& model, const ProofBatch& batch);
// The squared distance of one comparison's two rows, with the model's current embeddings.
double squared_distance(const Model& model, const Comparison& c);
// The kernel of one comparison: ad::rbf_of_squared_distance of the above.
double kernel(const Model& model, const Comparison& c);

}  // namespace ntp
