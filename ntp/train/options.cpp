// ntp/train/options.cpp: the names of the option values and the range checks
// (see options.h).
#include "ntp/train/options.h"

#include "autodiff/optim.h"
#include "ntp/kb/limits.h"
#include "ntp/kb/text.h"

#include <sstream>
#include <string>
#include <stdexcept>

namespace ntp {

namespace {

// Throws std::invalid_argument "<setting> must be <range>, got <value>" unless in_range.
template <class Value>
void require(bool in_range, const char* setting, const std::string& range, Value value) {
  if (in_range) return;
  std::ostringstream message;
  message << setting << " must be " << range << ", got " << value;
  throw std::invalid_argument(message.str());
}

}  // namespace

void check_options(const ModelOptions& o) {
  const ProverConfig& p = o.prover;
  require(o.dim >= 1 && o.dim <= kMaxDim, "the embedding dimension", "in 1.." + std::to_string(kMaxDim), o.dim);
  require(p.depth >= 0 && p.depth <= ProverConfig::kMaxDepth, "proof depth",
          "in 0.." + std::to_string(ProverConfig::kMaxDepth) + " (the search grows exponentially with depth)", p.depth);
  require(p.k_facts >= 0, "the facts kept per or-step (k)", ">= 0 (0 = all)", p.k_facts);
  require(p.k_open >= 0, "the facts kept per or-step for an open atom (k-open)", ">= 0 (0 = k)", p.k_open);
  require(p.k_rules >= 0, "the rules kept per or-step", ">= 0 (0 = all)", p.k_rules);
  check_fact_index_kind(p.index);
  require(!p.complex || o.dim % 2 == 0, "the embedding dimension", "even for ComplEx (pairs of real and imaginary parts)",
          o.dim);
  require(o.constant_init > 0 && o.constant_init <= 1e6, "the constants' initial range", "in (0, 1e6]", o.constant_init);
}

const char* training_mask_name(TrainingMask mask) { return mask == TrainingMask::Pair ? "pair" : "fact"; }

bool training_mask_from_name(const std::string& name, TrainingMask* mask) {
  if (name != "fact" && name != "pair") return false;
  *mask = name == "pair" ? TrainingMask::Pair : TrainingMask::Fact;
  return true;
}

void check_options(const TrainOptions& o) {
  require(o.epochs >= 0, "the number of epochs", ">= 0", o.epochs);
  require(o.complex_epochs >= 0 && o.complex_epochs <= o.epochs, "the ComplEx-only epochs",
          "in 0..epochs (" + std::to_string(o.epochs) + ")", o.complex_epochs);
  require(o.batch >= 1, "the batch (positives per step)", ">= 1", o.batch);
  require(o.complex_candidates >= 0, "the ComplEx-only candidates per update", ">= 0 (0 = every constant)",
          o.complex_candidates);
  require(o.complex_batch >= 1, "the ComplEx-only batch (positives per 1-vs-all update)", ">= 1", o.complex_batch);
  require(o.negatives >= 0, "the negatives per positive", ">= 0", o.negatives);
  require(o.predicate_negatives >= 0 && o.predicate_negatives <= o.negatives, "the predicate corruptions per positive",
          "in 0..negatives (" + std::to_string(o.negatives) + ")", o.predicate_negatives);
  ad::make_optimizer(o.optimizer, {});  // throws naming the optimisers there are
  require(o.l2 >= 0, "the L2 coefficient", ">= 0", o.l2);
  require(o.l2_predicates >= 0 || o.l2_predicates == -1, "the predicates' L2 coefficient", ">= 0 (-1 = --l2's)",
          o.l2_predicates);
  if (o.proof_loss == ProofLoss::Ranking && o.negatives < 1)
    throw std::invalid_argument("the ranking proof loss needs at least one corruption per positive (--negatives), got " +
                                std::to_string(o.negatives));
  require(o.explore >= 0, "the exploration temperature", ">= 0 (0 = off)", o.explore);
  require(o.index.update_every >= 0, "the steps between fact index updates", ">= 0 (0 = every step)",
          o.index.update_every);
  require(o.recall_every >= 0, "the steps between recall probes", ">= 0 (0 = never)", o.recall_every);
  require(o.recall_sample >= 1, "the queries per recall probe", ">= 1", o.recall_sample);
}

const char* complex_loss_name(ComplexLoss loss) { return loss == ComplexLoss::All ? "all" : "sampled"; }

bool complex_loss_from_name(const std::string& name, ComplexLoss* loss) {
  if (name != "sampled" && name != "all") return false;
  *loss = name == "all" ? ComplexLoss::All : ComplexLoss::Sampled;
  return true;
}

const char* proof_loss_name(ProofLoss loss) { return loss == ProofLoss::Ranking ? "ranking" : "binary"; }

bool proof_loss_from_name(const std::string& name, ProofLoss* loss) {
  if (name != "binary" && name != "ranking") return false;
  *loss = name == "ranking" ? ProofLoss::Ranking : ProofLoss::Binary;
  return true;
}

const char* keep_name(Keep keep) { return keep == Keep::Last ? "last" : "best"; }

bool keep_from_name(const std::string& name, Keep* keep) {
  if (name != "best" && name != "last") return false;
  *keep = name == "last" ? Keep::Last : Keep::Best;
  return true;
}

void check_options(const RunOptions& o) {
  if (o.model_path.empty()) throw std::invalid_argument("no model path to write the trained model to");
  require(o.eval_every >= 0, "the epochs between dev metrics", ">= 0 (0 = never)", o.eval_every);
  for (std::size_t i = 0; i < o.l2_choices.size(); ++i) {
    require(o.l2_choices[i] >= 0, "each L2 coefficient to choose from", ">= 0", o.l2_choices[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (o.l2_choices[j] == o.l2_choices[i])
        throw std::invalid_argument("the L2 coefficients to choose from must differ; " + format_number(o.l2_choices[i]) +
                                    " is given twice");
  }
  check_share(o.share);
}

}  // namespace ntp
