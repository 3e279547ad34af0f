// ntp/train/options.h: the settings of a training run and what it reports, as
// plain values: what a program passes to train() (train.h) and gets back. No
// embeddings, tape or fact index here, so that the public API can name them.
//
// Each settings struct has a check_options() that throws std::invalid_argument
// naming the setting that is out of range; train() calls them first, and a
// front end may call them before reading any data.
#pragma once

#include "ntp/kb/process_share.h"
#include "ntp/model/config.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ntp {

// The recipe's prover (see TrainOptions): NTPλ, a goal scored by the mean of
// its proof score and its ComplEx score; k = 1, depth 1.
inline ProverConfig recipe_prover() {
  ProverConfig c;
  c.complex = true;
  c.combine = Combine::Mean;
  return c;
}

// The model a run trains: its size, how it proves, and its initialisation.
struct ModelOptions {
  int dim = 100;
  ProverConfig prover = recipe_prover();
  std::uint64_t seed = 0;
  bool attention = false;  // rule slots attend over the KB predicates (rule_attention.h)
  // Conditional proving (conditional.h): rules whose head is a slot get
  // bodies computed from the goal. Attentive implies attention.
  Reformulator reformulator = Reformulator::None;
  // Constant embeddings start uniform in [-constant_init, constant_init]
  // (the same draws, scaled). At 1 a ComplEx score of random constants has a
  // logit of about ±2.7 (dim 100); on a KB whose constants are seen a few
  // times an epoch (WN18RR) ComplEx then cannot learn them before it shrinks
  // its predicate rows to escape that noise (docs/RESULTS.md).
  double constant_init = 1.0;
};
void check_options(const ModelOptions& options);

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

// The loss of the ComplEx-only epochs (TrainOptions::complex_epochs).
//   Sampled  the cross-entropy of each positive and its `negatives`
//            corruptions, as in the epochs with proofs.
//   All      1-vs-all (Lacroix et al., 2018): for each positive p(s, o) a
//            softmax over every constant as the object of p(s, ?), and one
//            as the subject of p(?, o), each trained towards the true
//            constant. It ranks what ranking is evaluated on, at the price of
//            scoring every constant: `complex_batch` positives an update.
enum class ComplexLoss { Sampled, All };
const char* complex_loss_name(ComplexLoss loss);                            // "sampled", "all"
bool complex_loss_from_name(const std::string& name, ComplexLoss* loss);    // false if unknown

// The loss of the epochs with proofs, on each positive's proof score and
// its corruptions'.
//   Binary   NTP's: the cross-entropy of every score against its label, as
//            if it were a probability.
//   Ranking  each positive against its own corruptions: the cross-entropy
//            of the positive's share of its group's summed scores
//            (ad::group_cross_entropy), a softmax over minus the proofs'
//            distances. It trains the order that ranking measures; a
//            corruption far below its positive no longer pulls. It needs
//            many corruptions (Nations dev: 12 a positive gains, 4 loses;
//            docs/results/proof_loss.md).
enum class ProofLoss { Binary, Ranking };
const char* proof_loss_name(ProofLoss loss);                            // "binary", "ranking"
bool proof_loss_from_name(const std::string& name, ProofLoss* loss);    // false if unknown

// How the model learns (batch.h, step.h). The defaults are one recipe for
// every benchmark, chosen on their dev splits together (docs/RESULTS.md, "One
// recipe"); NTP's own settings were lr 1e-3, L2 1e-3 and 2 negatives.
struct TrainOptions {
  int epochs = 100;
  // The first `complex_epochs` epochs train the ComplEx loss alone, without
  // proofs (an NTPλ model): an epoch of WN18RR takes seconds instead of
  // minutes, so constants seen a few times an epoch can get embeddings
  // before the prover's epochs.
  int complex_epochs = 0;
  ComplexLoss complex_loss = ComplexLoss::Sampled;
  // Positives per update of ComplexLoss::All, in whole steps of `batch`:
  // scoring a batch against every constant is one matrix product, which pays
  // only for hundreds of rows at a time. Every constant an update scores is
  // touched, so L2 (on the touched rows) shrinks them all, not only the batch's.
  int complex_batch = 500;
  // The constants ComplexLoss::All scores each update: every one (0), or the
  // update's own true constants and this many others drawn uniformly afresh
  // for the update (a sampled softmax: the product shrinks from every
  // constant to these, at the price of seeing each wrong constant in a
  // fraction of the updates).
  int complex_candidates = 0;
  // In the epochs with proofs, only the rules learn: the constants' and the
  // KB relations' embeddings stay where they are (for example where the
  // ComplEx-only epochs left them), so the prover cannot trade away what
  // ComplEx learnt, and the fact index never relinks a constant.
  bool freeze_kb = false;
  int batch = 10;                 // positives per step
  int negatives = 4;              // corruptions per positive
  ProofLoss proof_loss = ProofLoss::Binary;
  // Of those, how many replace the predicate (another KB predicate of the
  // fact's arity that shares no argument tuple with it in training, so that
  // parentOf(x, y) is never drawn for fatherOf(x, y)) instead of a constant;
  // at most `negatives`. Corrupting constants alone rarely
  // asks fatherOf(mother, child), so similar relations drift together and
  // a goal unifies with their facts directly (fatherOf ~ parentOf) instead
  // of through a rule (docs/RESULTS.md, the family KB).
  int predicate_negatives = 0;
  TrainingMask mask = TrainingMask::Fact;
  double learning_rate = 0.01;
  double l2 = 1e-4;               // per step, on the rows the step touched
  // L2 on the predicate table's rows (the KB relations and the rule slots;
  // attended slots are rebuilt from their logits, which take `l2`) instead
  // of `l2`; -1: `l2`. Nations wants its relations regularised
  // harder than Countries S3 tolerates for its constants (docs/RESULTS.md).
  double l2_predicates = -1;
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
  // on `recall_sample` of that step's queries, fewer on large KBs (recall_probe.h).
  int recall_every = 100;
  int recall_sample = 64;
  bool profile = false;           // time each phase of a step (EpochReport::time)
  bool progress_inline = false;   // rewrite one progress line (a terminal), or else
  double progress_seconds = 10;   // print a progress line this often (a log file)
};
void check_options(const TrainOptions& options);

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
  double group = 0;               // summing the gradient over a group of processes (shared_gradient.h)
  long long goals = 0;            // goals proven (positives and negatives)
  // The rows of the trained tables that steps gave a gradient (what the
  // optimiser moved), and their bytes: what processes training together
  // would have to sum a step, the gradient being sparse.
  long long steps = 0;
  long long gradient_rows = 0;
  double gradient_bytes = 0;
  double group_bytes = 0;         // in a group: the bytes this process sent, summing its gradient
  FactIndexStats index;           // the fact index's own counts (queries, relinked rows, widened searches)
};

struct EpochReport {
  int epoch = 0;                  // 1-based
  double mean_loss = 0;
  double seconds = 0;
  double recall_at_1 = -1;        // mean over this epoch's probes; -1 when none ran
  int recall_probes = 0;
  TimeSplit time;                 // filled when TrainOptions::profile
  std::string note;               // set after the epoch (the dev metric): shown at the end of its progress line
};

// Which model the model path receives when a dev metric is measured.
//   Best  the one after the epoch with the best dev metric (the default: a
//         metric measured during training is there to choose a model with;
//         it stops an overfitting run from ending on a worse model).
//   Last  the one after the last epoch.
// Without a measured dev metric both are the last model.
enum class Keep { Best, Last };
const char* keep_name(Keep keep);                        // "best", "last"
bool keep_from_name(const std::string& name, Keep* keep);  // false if unknown

// Where an NTPλ model's combine rule comes from (combine_choice.h).
//   Given  ModelOptions' rule, as set.
//   Dev    chosen on the run's dev atoms after training (it must have them).
//   Auto   Dev when the run has dev atoms and an NTPλ model, else Given (the
//          default: where ComplEx learns little, as on a large KB whose
//          constants are each in a few facts, the run finds out on dev).
enum class CombineFrom { Given, Dev, Auto };

// What a run keeps: the model, a checkpoint after every epoch, a log.
struct RunOptions {
  std::string model_path;  // the model; its checkpoint is checkpoint_path(model_path)
  int eval_every = 0;      // dev metric after every N-th epoch (0 = never; needs dev atoms)
  Keep keep = Keep::Best;
  std::string log_path;    // one JSON object per epoch ("" = no log); appended to when resuming
  bool resume = false;     // continue from the checkpoint (its settings must match)
  CombineFrom combine_from = CombineFrom::Auto;
  // Two or more L2 coefficients to choose from on dev (TrainOptions::l2 is
  // then ignored): one run per value, the same seed, each written to
  // l2_candidate_path(model_path, value) with its own checkpoint; the one
  // whose kept model scores best on at most 500 dev atoms (dev_metric.h, with
  // its combine rule) becomes model_path. Without dev atoms, the first value
  // alone. One value, or none (the library's default): TrainOptions::l2, no
  // choice. The front ends choose by default (TrainSettings, option_table.h).
  std::vector<double> l2_choices;
  // With ranked dev atoms: after training, mine the training facts' rules
  // and keep them beside the model's score, with the weight dev chooses, when
  // they rank dev better (mined_rules_choice.h). False: the model alone.
  bool mined_rules_on_dev = true;
  // With a file's templates, ranked dev atoms and a small KB
  // (can_choose_templates, mined_templates.h): also train a prover started
  // from templates mined from the training facts (`--templates mined`), each
  // run with the choices above, at template_candidate_path(model_path, ...),
  // and keep the one whose model ranks dev clearly better, or, within noise,
  // whose proofs alone rank dev better (template_candidate_kept).
  // The front ends do (TrainSettings); the library's default does not.
  bool mined_templates_on_dev = false;
  // Given no dev facts, hold some out of the training facts to make the
  // choices above on, then train on every fact with them (carved_dev.h).
  // The front ends do (TrainSettings); the library's default does not.
  bool dev_from_train = false;
  // May be raised at any time (by a signal handler): the run finishes its
  // step, writes the checkpoint and returns (in a choice on dev after
  // training, its round; the run is unfinished and --resume makes that
  // choice again). Null: the run is never stopped.
  const std::atomic<bool>* stop = nullptr;
  // The processes training together (`mpirun -np R ntp train`): each proves
  // its share of every step's goals, and all of them hold the same model
  // (train/shared_gradient.h). Every process runs the whole run, choices on
  // dev included, and writes its own files: a caller gives the others paths
  // of their own. Alone by default.
  ProcessShare share;
};
void check_options(const RunOptions& options);

struct RunResult {
  bool finished = false;   // false: stopped; resume from `checkpoint`
  int epochs_done = 0;     // complete epochs
  std::size_t steps_done = 0;  // steps of the next epoch, when stopped inside it
  std::string metric;      // the dev metric's name ("" when none was measured)
  double best_dev = -1;
  int best_epoch = 0;
  std::string checkpoint;  // its path
  // Seconds of training, over every process that trained (resumed runs too):
  // the kept model's, or with a choice of L2 made by this run every
  // candidate's (a finished choice resumed counts the kept candidate's only:
  // the others' checkpoints are gone).
  double training_seconds = 0;
  std::string width_choice;    // when chosen on dev: the proof search width chosen and each width's dev metric
  std::string combine_choice;  // when chosen on dev: the rule chosen and each rule's dev metric
  std::string l2_choice;       // when chosen on dev: the value chosen and each value's dev metric
  std::string templates_choice;  // when chosen on dev: the templates kept (the file's or mined) and each one's dev metric
  std::string mined_rules;     // when tried on dev: whether mined rules were kept, their weight and the dev metrics
  std::string dev_carved;      // when the dev facts were held out of the training facts: how many, and what followed
};

}  // namespace ntp
