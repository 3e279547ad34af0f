// tests/ntp/reference_prover_check.h: ntp::Prover checked against the
// reference prover (reference_prover.h) on one model and a list of goals.
// Shared by the doctest (test_reference_prover.cpp) and the fuzz target
// (tools/fuzz/fuzz_reference_prover.cpp). Each check returns "" when the two
// agree, else a sentence naming the goal and both values.
//
// What is compared, for a search with every fact (k = 0) or with k = number
// of facts (the nearest k are then all of them):
//   scores     each goal's score, from score_goals without and with the tape,
//              equals the reference's max over proofs of min over kernels;
//   paths      k = number of facts builds exactly the reference's proofs (the
//              same multiset of kernel lists); with explanations, every path
//              also has the reference's steps (fact or rule, atom, depth);
//   best path  the best path the search returns is one of the reference's
//              proofs and scores the reference's optimum (exhaustive search
//              returns that path alone);
//   gradients  the tape gradient of a goal's score is the gradient of the
//              one kernel that decides it, where no near tie makes that
//              kernel ambiguous.
#pragma once

#include "ntp/index/make_fact_index.h"
#include "reference_prover.h"

#include <sstream>
#include <string>

namespace reference {

// A proof as comparable numbers: its kernels, each as (table, lower row,
// higher row) since k(a, b) = k(b, a), then (with steps) its steps.
using Key = std::vector<int>;

inline void append(Key& key, const ntp::Comparison& c) {
  key.insert(key.end(), {static_cast<int>(c.table), std::min(c.a, c.b), std::max(c.a, c.b)});
}

inline void append(Key& key, bool by_rule, int id, int depth, const ntp::Atom& atom) {
  key.insert(key.end(), {-1, by_rule ? 1 : 0, id, depth, atom.predicate});  // -1: a step starts
  key.insert(key.end(), atom.args.begin(), atom.args.end());
}

inline Key proof_key(const Proof& p, bool with_steps) {
  Key key;
  for (const ntp::Comparison& c : p.comparisons) append(key, c);
  if (with_steps)
    for (const Step& s : p.steps) append(key, s.by_rule, s.id, s.depth, s.atom);
  return key;
}

inline Key path_key(const ntp::ProofBatch& batch, const ntp::ProofPath& path, bool with_steps) {
  Key key;
  for (int c : path.comparisons) append(key, batch.comparisons[static_cast<std::size_t>(c)]);
  if (with_steps)
    for (const ntp::ProofStep& s : path.steps) append(key, s.by_rule, s.id, s.depth, s.atom);
  return key;
}

// The reference's answer for each goal: every proof and the best score.
struct Answers {
  std::vector<std::vector<Proof>> proofs;  // (goals)
  std::vector<double> best;                // (goals): 0 without a proof
};

inline Answers answer(const ntp::Model& model, int depth, const std::vector<ntp::Goal>& goals) {
  Answers a;
  for (const ntp::Goal& g : goals) {
    a.proofs.push_back(proofs(model, depth, g));
    double best = 0;
    for (const Proof& p : a.proofs.back()) best = std::max(best, proof_score(model, p));
    a.best.push_back(best);
  }
  return a;
}

// Equal up to rounding: kernels of the same rows computed by the same formula
// agree to the last bits, and exhaustive search ranks states by kernel
// tables computed another way.
inline bool same_score(double x, double y) { return std::abs(x - y) <= 1e-10 * std::max(std::abs(x), std::abs(y)); }

template <class Value>
std::string mismatch(std::size_t goal, const std::string& what, Value real, Value expected) {
  std::ostringstream s;
  s.precision(17);
  s << "goal " << goal << ": " << what << " " << real << ", reference " << expected;
  return s.str();
}

// The first path of each goal in ProofBatch::paths.
inline std::vector<std::size_t> first_paths(const ntp::ProofBatch& batch) {
  std::vector<std::size_t> first{0};
  for (ad::Index count : batch.path_counts) first.push_back(first.back() + static_cast<std::size_t>(count));
  return first;
}

inline std::string check_scores(ntp::Model& model, const ntp::ProofBatch& batch, const Answers& expected) {
  const std::vector<double> plain = ntp::score_goals(model, batch);
  ad::Tape tape;
  const ad::Matrix taped = tape.value(ntp::score_goals(tape, model, batch));
  if (plain.size() != expected.best.size()) return mismatch(0, "number of goals scored", plain.size(), expected.best.size());
  for (std::size_t g = 0; g < plain.size(); ++g) {
    if (!same_score(plain[g], expected.best[g])) return mismatch(g, "score", plain[g], expected.best[g]);
    if (!same_score(taped(static_cast<ad::Index>(g), 0), expected.best[g]))
      return mismatch(g, "score on the tape", taped(static_cast<ad::Index>(g), 0), expected.best[g]);
  }
  return "";
}

// Every path of every goal against every proof: the same multisets.
inline std::string check_all_paths(const ntp::ProofBatch& batch, const Answers& expected, bool with_steps) {
  const std::vector<std::size_t> first = first_paths(batch);
  for (std::size_t g = 0; g < expected.proofs.size(); ++g) {
    std::vector<Key> real, reference;
    for (std::size_t p = first[g]; p < first[g + 1]; ++p) real.push_back(path_key(batch, batch.paths[p], with_steps));
    for (const Proof& p : expected.proofs[g]) reference.push_back(proof_key(p, with_steps));
    if (real.size() != reference.size()) return mismatch(g, "number of proof paths", real.size(), reference.size());
    std::sort(real.begin(), real.end());
    std::sort(reference.begin(), reference.end());
    const auto differ = std::mismatch(real.begin(), real.end(), reference.begin()).first;
    if (differ != real.end())
      return "goal " + std::to_string(g) + ": the sorted paths differ from the sorted proofs at " +
             std::to_string(differ - real.begin()) + " of " + std::to_string(real.size()) +
             (with_steps ? " (kernels and steps)" : " (kernels)");
  }
  return "";
}

// The path a goal's score comes from must be a proof the reference knows,
// with the reference's optimal score. Exhaustive search keeps that one only.
inline std::string check_best_paths(const ntp::Model& model, const ntp::ProofBatch& batch, const Answers& expected,
                                    bool with_steps, bool best_only) {
  const std::vector<std::size_t> first = first_paths(batch);
  const std::vector<double> scores = ntp::path_scores(model, batch);
  for (std::size_t g = 0; g < expected.proofs.size(); ++g) {
    const std::size_t count = first[g + 1] - first[g];
    const std::size_t proofs = expected.proofs[g].size();
    if (best_only ? count != std::min<std::size_t>(proofs, 1) : (count == 0) != (proofs == 0))
      return mismatch(g, best_only ? "paths (one if the goal has a proof)" : "paths (some if the goal has a proof)",
                      count, proofs);
    if (count == 0) continue;
    std::size_t best = first[g];
    for (std::size_t p = first[g]; p < first[g + 1]; ++p)
      if (scores[p] > scores[best]) best = p;
    const Key key = path_key(batch, batch.paths[best], with_steps);
    double score = -1;  // the reference's score of that proof; -1 if it knows none such
    for (const Proof& p : expected.proofs[g])
      if (proof_key(p, with_steps) == key) score = std::max(score, proof_score(model, p));
    if (score < 0) return mismatch(g, "best path is no proof of the reference; its score", scores[best], expected.best[g]);
    if (!same_score(score, expected.best[g])) return mismatch(g, "best path's reference score", score, expected.best[g]);
  }
  return "";
}

// The one kernel a goal's score comes from: the kernel at the min of its best
// proof. None (has_value false) when the goal has no proof; ambiguous when
// another proof or another kernel comes within rounding of deciding it
// instead and is not the same pair of rows, since the tape then picks one of
// them by position.
struct Decider {
  bool has_value = false, ambiguous = false;
  ntp::Comparison comparison;
};

inline Decider decider(const ntp::Model& model, const std::vector<Proof>& proofs, double best) {
  Decider d;
  const double near = 1e-9 * best;
  for (const Proof& p : proofs) {
    const double score = proof_score(model, p);
    if (score < best - near) continue;
    for (const ntp::Comparison& c : p.comparisons) {
      if (kernel_of(model, c) > score + near) continue;
      const bool same = d.has_value && d.comparison.table == c.table &&
                        std::min(c.a, c.b) == std::min(d.comparison.a, d.comparison.b) &&
                        std::max(c.a, c.b) == std::max(d.comparison.a, d.comparison.b);
      if (d.has_value && !same) d.ambiguous = true;
      d.has_value = true;
      d.comparison = c;
    }
  }
  return d;
}

// Adds the gradient of k(a, b) = exp(-r), r = ‖θa - θb‖ (no gradient where
// r² is clipped), to the two rows in `grad`. False when r² lies so close to
// a clip bound that rounding decides whether it is clipped.
inline bool add_kernel_gradient(const ad::Matrix& table, int a, int b, ad::Matrix& grad) {
  const ad::Matrix difference = table.row(a) - table.row(b);  // (1, d)
  const double squared = difference.squaredNorm();
  for (double bound : {ad::kMinSquaredDistance, ad::kMaxSquaredDistance})
    if (std::abs(squared - bound) <= 1e-9 * bound) return false;
  if (squared < ad::kMinSquaredDistance || squared > ad::kMaxSquaredDistance) return true;
  const double r = std::sqrt(squared);
  grad.row(a) -= std::exp(-r) / r * difference;
  grad.row(b) += std::exp(-r) / r * difference;
  return true;
}

// One backward pass through the sum of the scores of every goal whose score
// has an unambiguous decider; the tables' gradients must be the sum of
// those deciders' kernel gradients. `checked` counts those goals.
inline std::string check_gradients(ntp::Model& model, const ntp::ProofBatch& batch, const Answers& expected,
                                   int* checked) {
  ad::Matrix predicates = ad::Matrix::Zero(model.predicates.value.rows(), model.predicates.value.cols());
  ad::Matrix constants = ad::Matrix::Zero(model.constants.value.rows(), model.constants.value.cols());
  std::vector<ad::Index> goals;
  for (std::size_t g = 0; g < expected.proofs.size(); ++g) {
    const Decider d = decider(model, expected.proofs[g], expected.best[g]);
    if (d.ambiguous) continue;
    if (d.has_value) {
      const bool predicate = d.comparison.table == ntp::Table::Predicate;
      if (!add_kernel_gradient(predicate ? model.predicates.value : model.constants.value, d.comparison.a,
                               d.comparison.b, predicate ? predicates : constants))
        continue;
    }
    goals.push_back(static_cast<ad::Index>(g));
  }
  *checked += static_cast<int>(goals.size());
  if (goals.empty()) return "";
  model.predicates.clear_grad();
  model.constants.clear_grad();
  ad::Tape tape;
  tape.backward(ad::sum(tape, ad::gather_rows(tape, ntp::score_goals(tape, model, batch), goals)));
  const double error = std::max((model.predicates.grad - predicates).cwiseAbs().maxCoeff(),
                                (model.constants.grad - constants).cwiseAbs().maxCoeff());
  model.predicates.clear_grad();
  model.constants.clear_grad();
  if (error > 1e-9)
    return "goals " + std::to_string(goals.front()) + " on: the gradient is off by " + std::to_string(error);
  return "";
}

// Every check of a search with `config` (k_facts 0 or the number of facts)
// on the fact index `index`, against the reference's answers at
// config.depth: exhaustive search (k = 0) with branch and bound and with
// explanations, or k = number of facts. "" when all agree. Gradients are
// checked only when `gradients_checked` is given: the check knows kernels of
// table rows, not rows computed from others (conditional.h).
inline std::string check_prover(ntp::Model& model, const std::vector<ntp::Goal>& goals, const Answers& expected,
                                const ntp::ProverConfig& config, const std::string& index, int* gradients_checked) {
  const auto facts = ntp::make_fact_index(model, index);
  const ntp::Prover prover(model, *facts, config);
  const bool exhaustive = config.k_facts <= 0;
  const ntp::ProofBatch batch = prover.search(goals);
  std::string error = check_scores(model, batch, expected);
  if (error.empty() && !exhaustive) error = check_all_paths(batch, expected, false);
  if (error.empty()) error = check_best_paths(model, batch, expected, false, exhaustive);
  if (error.empty() && gradients_checked) error = check_gradients(model, batch, expected, gradients_checked);
  if (error.empty() && exhaustive) {  // explanations keep every path, with its steps
    const ntp::ProofBatch explained = prover.search(goals, /*explain=*/true);
    error = check_all_paths(explained, expected, true);
    if (error.empty()) error = check_best_paths(model, explained, expected, true, false);
  }
  if (!error.empty()) error = (exhaustive ? "k = 0, " : "k = all facts, ") + error;
  return error;
}

}  // namespace reference
