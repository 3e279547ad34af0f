// ntp/model/conditional.h: conditional proving. A rule's body predicates are
// computed from the goal it proves, so the prover learns which sub-goals to
// ask for which goal (CTP: Minervini et al. 2020, "Learning reasoning
// strategies in end-to-end differentiable proving").
//
// A plain rule `#1(X, Y) :- #2(X, Z), #3(Z, Y)` has one embedding per slot:
// it proves a goal p(a, b) with score min(k(θ_p, θ_#1), body...), so one rule
// serves the relations near θ_#1 only, with the same body for all of them.
// A *conditional* rule (one whose head is a slot) has no head kernel: it
// applies to every goal, and each body slot s becomes a function of the goal's
// predicate embedding g, a *reformulator*:
//   linear     θ_s(g) = θ_s + g W_s                    W_s (d, d), starts at 0
//   attentive  θ_s(g) = softmax(c (a_s + g A_s)) E      A_s (d, P + 1), starts at 0
// θ_s is the slot's own row (its free embedding, or with rule attention its
// mix), a_s its attention logits (rule_attention.h; c their scale, which the
// goal's part shares so that both move alike under Adam), E the P KB
// predicates' rows and the null row, so that a rule can be off for some
// goals and on for others. Both start as the plain rule without its head kernel;
// training moves W_s / A_s so that the body depends on the goal. The
// attentive form keeps every body predicate inside the hull of real
// relations, so its rules read as KB predicates (rules.h): for goal p, slot s
// reads as argmax softmax(c (a_s + θ_p A_s)), believed with that weight.
//
// The prover only compares table rows, so each (slot s, source row q) that a
// proof can reach gets a *conditioned row* of Model::predicates: rows
// [P + S, P + S + G) hold θ_s(θ_q) for q a KB predicate (goals), and at depth
// > 1 for q a conditioned row itself (sub-goals of sub-goals). Those rows
// are computed on the tape (predicate_table) for gradients and written to
// the table for search, the fact index and evaluation: in training, a step
// computes and writes the rows its goals can reach before its search
// (train/step.h) and the others wait for the epoch's end
// (refresh_conditioned_rows); model files store only the formula's
// parameters.
#pragma once

#include "autodiff/tape.h"
#include "ntp/model/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ntp {

bool has_conditioning(const Model& model);
// Makes every rule whose head is a slot conditional, with `kind`'s weights at
// 0 (attentive also gives the slots rule attention, from `seed`), and adds
// the conditioned rows. Throws std::invalid_argument for Reformulator::None
// or a model already conditional.
void add_conditioning(Model& model, Reformulator kind, std::uint64_t seed);
// Rebuilds the list of conditioned rows from the rules and the model's depth
// and grows the predicate table to hold them (load_model calls it after
// reading the weights), then refreshes them.
void index_conditioned_rows(Model& model);
// Rewrites the conditioned rows of model.predicates.value from the formula.
void refresh_conditioned_rows(Model& model);
// The conditioned rows that proofs of goals whose predicate rows are
// `goal_rows` can read, to the model's depth: at the first level the rows
// conditioned on a goal row, below it those conditioned on a row the level
// above asks (a body atom's row). Ascending; empty without conditioning.
std::vector<int> reachable_conditioned_rows(const Model& model, const std::vector<int>& goal_rows);

// True when body atom `atom` of `rule` is asked through a row conditioned
// on the goal (a conditional rule's slot), false when through its own row.
bool asks_conditioned(const Model& model, const Rule& rule, const RuleAtom& atom);
// Flags over model.conditioning.rows: the conditioned rows among `rows`
// (predicate rows; others are ignored) and every conditioned row they are
// computed from.
std::vector<char> conditioned_rows_needed(const Model& model, const std::vector<int>& rows);

// The row of slot row `slot` conditioned on goal row `source`. Throws
// std::logic_error for a pair no proof within the model's depth reaches.
int conditioned_row(const Model& model, int slot, int source);
// The predicate row of body atom i of `rule` when the rule proves an atom of
// predicate row `goal_row`: the body atom's own row, or for a conditional
// rule's slot that slot conditioned on the goal.
int body_row(const Model& model, const Rule& rule, std::size_t i, int goal_row);

// (P + S + G, d) on the tape: every predicate row as the prover reads it
// (KB predicates, slots or their attention mix, conditioned rows), so that a
// kernel against row r means the same as against predicates row r.
ad::Var predicate_table(ad::Tape& tape, Model& model);
// The same with only the conditioned rows among `rows` (and those they are
// computed from): a training step's proofs ask the rows of its goals'
// relations only. Row r of the predicate table is row position[r] of
// `table`, -1 where it was not computed.
struct PartialTable {
  ad::Var table;
  std::vector<ad::Index> position;  // (P + S + G)
};
PartialTable predicate_table(ad::Tape& tape, Model& model, const std::vector<int>& rows);
// Copies the conditioned rows `table` holds from the tape into
// model.predicates.value, so that a search reads what the tape will score.
void write_conditioned_rows(Model& model, const ad::Tape& tape, const PartialTable& table);

// For reading rules: the attentive reformulator's weights (1, P + 1) of slot
// row `slot` for goal row `source` (the last for "no relation", as in
// rule_attention.h), summing to 1.
ad::Matrix conditioned_attention(const Model& model, int slot, int source);

}  // namespace ntp
