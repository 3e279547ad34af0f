// ntp/model/rule_attention.h: rule predicates as attention over the KB's relations
// (GNTP, Minervini et al. 2020, "Learning reasoning strategies in end-to-end
// differentiable proving").
//
// Without attention each rule slot s (`#1`, `#2`, ... of an instantiated rule)
// has a free embedding, which training may move to where no real relation
// is: the rule then proves nothing a user can read. With attention the slot
// has no embedding of its own; it is a convex mix of the P KB predicates'
// and of one fixed "no relation" row θ_null far from all of them,
//     θ_s = Σ_p softmax(c a_s)_p θ_p + softmax(c a_s)_null θ_null,
// with learnable logits a_s and a fixed scale c (kAttentionLogitScale says
// why) (Model::rule_attention, one row per slot, one column per KB predicate
// and one for the null row). The slot can only lie inside the hull of real
// relations, or move towards nowhere: a free slot turns a useless rule off by
// drifting away from every relation (on Countries S3, 9 of 12 rules end with
// confidence <= 0.001), and without the null row a mix of real relations
// could not, so every rule of every template kept proving (all 12 at >= 0.5,
// wrong ones included), which cost Countries S2/S3 10-40 points of AUC-PR
// (docs/RESULTS.md). A rule is read off the attention: slot s means the KB
// predicate argmax_p softmax(a_s)_p, believed with that weight (rules.h), so
// a slot gone to the null row reads with a low confidence.
// The slots keep their rows of Model::predicates, rewritten from the mix
// after every update (refresh_attended_slots), so that proof search, the
// fact index and evaluation read them as before; only the differentiable
// scoring (prover.cpp) goes through the mix on the tape, so that gradients
// reach the logits and the KB predicates.
#pragma once

#include "autodiff/tape.h"
#include "ntp/model/model.h"

#include <cstdint>

namespace ntp {

// The logits enter the softmax multiplied by this: an optimiser moves a
// parameter by about its learning rate per step whatever the gradient's size
// (Adam), so at NTP's 1e-3 a raw logit moves ~1 in a thousand steps, too
// little for a slot to settle on one of P predicates. On the family KB (dev,
// seeds 1-3, 30 epochs) scale 1 decoded no planted rule at >= 0.5, 10 gave
// 3-4 and 30 gave 3-4 with the best dev MRR (docs/RESULTS.md, family KB).
inline constexpr double kAttentionLogitScale = 30;

bool has_rule_attention(const Model& model);
// Whether the slots may also attend to "no relation" (models from before it
// have P columns of logits, not P + 1).
bool has_null_relation(const Model& model);
// Gives every slot attention logits, c a_s uniform in [-1, 1] from `seed` (a stream
// apart from the embeddings', which stay as without attention), and rewrites
// the slot rows from them.
void add_rule_attention(Model& model, std::uint64_t seed);
// (S, P + 1): each slot's weights over the KB predicates and "no relation",
// rows summing to 1.
ad::Matrix rule_attention_weights(const Model& model);
// (P + 1, d): what the slots attend over, the KB predicates' rows and the
// null row; plain, and on the tape from the relations' rows (P, d) there.
ad::Matrix attendable_rows(const Model& model);
ad::Var attendable_rows(ad::Tape& tape, const Model& model, ad::Var relations);
// (S, P + 1): the logits those weights are the row-wise softmax of (c a_s), plain
// and on the tape.
ad::Matrix scaled_attention_logits(const Model& model);
ad::Var scaled_attention_logits(ad::Tape& tape, Model& model);
// Rewrites the slot rows of model.predicates.value with the current mix.
void refresh_attended_slots(Model& model);
// (P + S, d) on the tape: the KB predicates' rows, then each slot's mix, so
// that a kernel against row r means the same as against predicates row r.
ad::Var attended_predicate_table(ad::Tape& tape, Model& model);

}  // namespace ntp
