// ntp/train/step.h: one training step, the unit the epoch loop (epochs.h)
// repeats. Each phase is a call of its own:
//   search    the goals' proofs, through the fact index (Prover::search)
//   score     each goal's proof score, on the tape (score_goals)
//   loss      binary cross-entropy against the labels; an NTPλ model adds
//             the cross-entropy of its ComplEx scores of the same goals
//   backward  the loss's gradient on the embedding rows the proofs used
//   group     in a group of processes, every process's gradient rows summed
//             into each (shared_gradient.h); alone, nothing
//   update    the optimiser moves those rows (Adam, AdaGrad or SGD, with L2
//             and clipping); a non-finite row stops training (NonFiniteError)
//             and a model with conditional rules has its conditioned rows
//             stale: the next step computes (on its tape, before its search)
//             the ones its goals can reach, refresh_rule_rows all of them
//   refresh   the fact index is told which rows moved
// The recall probe listens around the search, and the timer takes a lap
// after each phase; neither changes what the step computes.
#pragma once

#include "autodiff/optim.h"
#include "ntp/index/fact_index.h"
#include "ntp/kb/process_share.h"
#include "ntp/model/model.h"
#include "ntp/prover/prover.h"
#include "ntp/train/batch.h"
#include "ntp/train/options.h"
#include "ntp/train/recall_probe.h"
#include "ntp/train/step_timer.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ntp {

// What every step of a run works with: the model being trained, the
// optimiser (with its moments), the fact index the prover searches, and the
// tape the loss is differentiated on.
struct Learner {
  Learner(Model& model, const TrainOptions& options);
  Model& model;
  std::unique_ptr<ad::Optimizer> optimizer;
  std::vector<ad::Parameter*> parameters;  // the tables the optimiser moves
  std::unique_ptr<FactIndex> facts;
  Prover prover;
  ad::Tape tape;
  bool freeze_kb;  // TrainOptions::freeze_kb: train_step moves only the rules' rows
  ProofLoss proof_loss;       // TrainOptions::proof_loss
  // The goals a process proves together: under the ranking loss a positive
  // and its TrainOptions::negatives corruptions, which it compares; else 1.
  std::size_t proof_group;
  // The processes training together (shared_gradient.h): each step proves
  // this process's share of its goals. Alone by default.
  ProcessShare share;
};

// Where a step is: its epoch (1-based) and its step in the epoch (0-based).
struct StepPosition {
  int epoch;
  std::size_t step;
};

// TrainOptions::explore's temperature in `epoch` (1-based): linear from
// explore down to 0 at the middle epoch, the hard max from there on.
double explore_temperature(const TrainOptions& options, int epoch);

// One step on `batch`, scoring at `temperature`; returns its loss. Throws
// NonFiniteError if the loss or a moved embedding is not finite.
double train_step(Learner& learner, RecallProbe& probe, const StepGoals& batch, double temperature,
                  const StepPosition& at, StepTimer& timer);

// A step of TrainOptions::complex_epochs: the ComplEx loss of `batch` alone,
// without a proof search, then the update. The fact index is not told:
// relinking the rows each step moved would cost an HNSW index ten times the
// step itself (WN18RR: 19 s against 2 s an epoch), and no proof reads it
// until rebuild_index, once after the last such epoch.
double complex_step(Learner& learner, const StepGoals& batch, const StepPosition& at, StepTimer& timer);

// A ComplEx-only update with ComplexLoss::All: the 1-vs-all loss of
// `positives` (every constant scored as each one's object, then as its
// subject), then the update. Like complex_step, the fact index is not told.
// `candidates` (sorted) are the constants scored; they hold every
// positive's own constants.
double complex_all_step(Learner& learner, const std::vector<Atom>& positives, const std::vector<ad::Index>& candidates,
                        const StepPosition& at, StepTimer& timer);

// The constants a 1-vs-all update scores (TrainOptions::complex_candidates):
// every constant when `drawn` is 0 or at least their number, else the positives' own constants and
// `drawn` uniform draws (duplicates dropped), from a generator seeded with
// (seed, at): an update resumed from a checkpoint draws the same ones. Sorted.
std::vector<ad::Index> complex_candidates(const Model& model, const std::vector<Atom>& positives, int drawn,
                                          std::uint64_t seed, const StepPosition& at);

// Rewrites every conditioned row from the formula (steps leave those their
// goals did not reach stale): the epoch loop calls it before anyone outside
// the steps reads the model, at an epoch's end and when it stops.
void refresh_rule_rows(Learner& learner);

// Rebuilds the fact index (and the recall probe's) from the embeddings as
// they are: after ComplEx-only epochs every constant has moved far from where
// the index's links were made (an HNSW graph kept through them, its points
// moved in place, found the nearest fact for 10% of WN18RR's goals).
void rebuild_index(Learner& learner, RecallProbe& probe);

}  // namespace ntp
