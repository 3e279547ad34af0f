// ntp/train/batch.h: the goals of each training step. The positives are the
// training facts in an order reshuffled every epoch, `batch` at a time; each
// is followed by `negatives` corruptions of it, the subject and the object
// alternately replaced by a random constant, and the last
// `predicate_negatives` of them its predicate by another of its arity that
// shares no argument tuple with it in training (so never a known fact; else
// a constant). Constant corruptions that are known facts are redrawn. A
// positive's proofs may not use the fact itself, or under TrainingMask::Pair
// any fact between its constants.
//
// The order and every random draw come from one generator seeded with
// TrainOptions::seed, shuffling first and then corrupting step by step, so
// that a seed gives one sequence of goals; save() and restore() carry both
// through a checkpoint.
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/prover/prover.h"
#include "ntp/train/options.h"
#include "ntp/train/training_state.h"

#include <cstddef>
#include <random>
#include <unordered_map>
#include <vector>

namespace ntp {

// One step's goals: each positive (label 1) followed by its corruptions (label 0).
struct StepGoals {
  std::vector<Goal> goals;
  std::vector<double> labels;
};

class TrainingBatches {
 public:
  // Throws std::invalid_argument if the KB has no facts.
  TrainingBatches(const KnowledgeBase& kb, const TrainOptions& options);
  std::size_t steps_per_epoch() const { return (order_.size() + batch_ - 1) / batch_; }
  // A new order of the facts, for the epoch about to start.
  void shuffle();
  // The goals of step `step` (0-based) of this epoch; draws the corruptions.
  StepGoals goals(std::size_t step);
  // The positives of steps [first, last) of this epoch, without corruptions
  // (nothing is drawn from the generator): ComplEx's 1-vs-all loss scores
  // every constant in their place.
  std::vector<Atom> positives(std::size_t first, std::size_t last) const;
  // The order and the generator, into and out of a training state. restore()
  // throws std::invalid_argument if the state is not one of this KB's.
  void save(TrainingState& state) const;
  void restore(const TrainingState& state);

 private:
  Atom corrupt(const Atom& fact, int i);
  Atom corrupt_predicate(const Atom& fact, int i);
  MaskedFacts masked_facts(std::size_t fact) const;

  const KnowledgeBase& kb_;
  std::size_t batch_;
  int negatives_;
  int predicate_negatives_;
  // [predicate]: what its predicate corruptions may take (batch.cpp,
  // stand_in_predicates); empty without predicate negatives.
  std::vector<std::vector<int>> stand_ins_;
  std::vector<std::size_t> order_;  // fact ids
  std::mt19937_64 rng_;
  // TrainingMask::Pair: the facts between each set of constants (sorted), so
  // that p(a, b) and q(b, a) share the entry {a, b}; empty under Fact.
  std::unordered_map<std::vector<int>, std::vector<int>, VectorHash> facts_by_constants_;
};

}  // namespace ntp
