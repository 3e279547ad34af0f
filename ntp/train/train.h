// ntp/train/train.h: learning embeddings (and so rules) by proving facts.
//
// Each step takes `batch` training facts as positives, corrupts each into
// `negatives` false atoms (subject and object alternately replaced by a random
// constant; corruptions that are known facts are rejected and redrawn), proves
// all of them with the fact being proven masked out of its own proofs (see
// TrainingMask), and
// minimises the binary cross-entropy of the proof scores with Adam (or SGD,
// AdaGrad), L2 regularisation and gradient clipping.
#pragma once

#include "ntp/index/fact_index.h"
#include "ntp/model/model.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace ntp {

// What a positive's proofs may not use.
//   Fact  the fact itself (NTP): it must follow from the other facts.
//   Pair  also every other fact between the same constants, in any order
//         (e.g. its inverse q(b, a) for p(a, b)). A KB whose facts come with
//         their inverses (WN11: 95% of training facts) is otherwise learnt by
//         looking each fact up through an inverse rule, which moves no
//         constant embedding, while its test facts never relate two
//         constants already related in training (docs/RESULTS.md).
enum class TrainingMask { Fact, Pair };
const char* training_mask_name(TrainingMask mask);                        // "fact", "pair"
bool training_mask_from_name(const std::string& name, TrainingMask* mask);  // false if unknown

// The defaults are one recipe for every benchmark, chosen on their dev splits
// together (docs/RESULTS.md, "One recipe"); NTP's own settings were lr 1e-3,
// L2 1e-3 and 2 negatives.
struct TrainOptions {
  int epochs = 100;
  int batch = 10;                 // positives per step
  int negatives = 4;              // corruptions per positive
  TrainingMask mask = TrainingMask::Fact;
  double learning_rate = 0.01;
  double l2 = 1e-4;               // per step, on the rows the step touched
  double clip = 1.0;              // element-wise gradient clip, 0 = off
  std::string optimizer = "adam";
  // Exploration: > 0 scores a goal in training by a soft max over its proof
  // paths (prover.h) at this temperature in epoch 1, annealed linearly to
  // the hard max by the middle epoch, so that rules which do not yet win a
  // proof still get gradient early on (de Jong & Sha 2019: NTPs learn
  // few rules without exploration). 0: the hard max throughout.
  double explore = 0;
  std::uint64_t seed = 0;
  FactIndexOptions index;         // the fact index's settings (update_every: steps between index updates)
  // Recall@1 of an approximate fact index against exact search, measured
  // every `recall_every` steps (0 = never; exact indices are never probed)
  // on `recall_sample` of that step's queries.
  int recall_every = 100;
  int recall_sample = 64;
  bool profile = false;           // time each phase of a step (EpochReport::time)
  bool progress_inline = false;   // rewrite one progress line (a terminal), or else
  double progress_seconds = 10;   // print a progress line this often (a log file)
};

// Where an epoch's time went, in seconds of wall time. The fact index's own
// search time (index.search_seconds) is part of proof_search, summed over the
// threads that searched.
struct TimeSplit {
  double proof_search = 0;        // symbolic search (Prover::search), retrieval included
  double index_maintenance = 0;   // FactIndex::embeddings_moved
  double forward = 0;             // proof scores and loss on the tape
  double backward = 0;
  double optimiser = 0;
  double recall_probes = 0;       // measuring recall (exact searches)
  long long goals = 0;            // goals proven (positives and negatives)
  FactIndexStats index;           // the fact index's own counts (queries, relinked rows, widened searches)
};

struct EpochReport {
  int epoch = 0;                  // 1-based
  double mean_loss = 0;
  double seconds = 0;
  double recall_at_1 = -1;        // mean over this epoch's probes; -1 when none ran
  int recall_probes = 0;
  TimeSplit time;                 // filled when TrainOptions::profile
  std::string note;               // on_epoch may set it: shown at the end of the epoch's progress line
};

// Where the loop is, with everything random or accumulated that the next step
// depends on, so that training stopped here and resumed from it takes exactly
// the steps an uninterrupted run takes (with an exact fact index: table or
// brute; the approximate ones are rebuilt on resumption, not restored).
struct TrainingState {
  bool started = false;            // false: nothing to resume, train from the start
  int epochs_done = 0;             // complete epochs
  std::size_t steps_done = 0;      // steps of the next epoch already taken
  double loss_sum = 0;             // that epoch's sums so far
  double recall_sum = 0;
  int recall_probes = 0;
  std::string rng, probe_rng;      // std::mt19937_64 states, as their operator<< writes them
  std::vector<std::size_t> order;  // the facts' order, reshuffled in place each epoch
  std::vector<ad::Matrix> optimizer;  // ad::Optimizer::state()
  bool stopped = false;            // set when train() returned because `stop` was raised
};

// Thrown when a step's loss or an embedding it moved is NaN or infinite:
// training stops there, naming the epoch and step (1-based), and the model
// is left as it is for the caller, which must not save it.
struct NonFiniteError : std::runtime_error {
  NonFiniteError(int epoch, std::size_t step, const std::string& what);
  int epoch;
  std::size_t step;
};

// Trains `model` in place on model.kb.facts. `progress` (may be null) gets
// the loss, rate, elapsed time and ETA: a line per epoch (with the recall and,
// when profiling, the time split), and during the epoch a line rewritten in
// place (progress_inline) or a new line every progress_seconds.
// `on_epoch` (may be empty) is called after each epoch.
// `on_epoch` may fill the report's note (a dev metric) for the progress line.
void train(Model& model, const TrainOptions& options, std::ostream* progress,
           const std::function<void(EpochReport&)>& on_epoch = {});

// The same, resumable. If `state` is started, training continues from it
// (the model must be the one it was saved with); after every epoch, before
// on_epoch, `state` holds the position after that epoch. When `stop` becomes
// true (a signal handler may set it), the current step is finished, `state`
// is set to the position after it with `stopped` = true, and train returns.
void train(Model& model, const TrainOptions& options, std::ostream* progress,
           const std::function<void(EpochReport&)>& on_epoch, TrainingState* state, const std::atomic<bool>* stop);

}  // namespace ntp
