// ntp/model/mentions.h: the embeddings of textual patterns. A KB predicate
// that is a phrase (kb/pattern.h), such as [XXX]:is:adjacent:to:[YYY], has no
// free row: its row of Model::predicates is computed from a table of word
// embeddings by an encoder, the mean of its words' rows (GNTP's reader):
//     θ_pattern = (1/n) Σ_i ω_{w_i}          ω: Model::mentions.table (words, d)
// so phrases that share words start near each other and near the relation
// they paraphrase once training pulls them together, and a phrase never seen
// in training still has an embedding if its words were seen.
//
// The prover, the fact index and ComplEx read pattern rows like any other row
// of the table; only training knows they are computed. After a step's
// backward, the gradient the proofs left on a pattern row g_p is carried to
// the words by the encoder's own backward pass (the gradient of Σ_p ⟨θ_p, g_p⟩
// on a tape of the encoder alone: the chain rule, split at the table), the
// pattern rows are forgotten by the optimiser, and once it has moved the
// words the patterns reading them are encoded again.
#pragma once

#include "autodiff/tape.h"
#include "ntp/model/model.h"

#include <random>
#include <vector>

namespace ntp {

bool has_mentions(const Model& model);

// Finds the patterns among the KB predicates, builds the word vocabulary (in
// order of first appearance over the predicate rows) and
// Model::mentions.words_of, draws the word rows uniform in [-1, 1] from `rng`
// and encodes every pattern row from them. Draws nothing for a KB without
// patterns.
void add_mentions(Model& model, std::mt19937_64& rng);
// The KB predicate rows that are patterns, ascending.
std::vector<int> pattern_rows(const Model& model);

// (rows, d) on the tape: the encoder's output for the pattern rows `rows`.
ad::Var encode_patterns(ad::Tape& tape, Model& model, const std::vector<int>& rows);
// Rewrites the predicate rows of the patterns `rows` from the word table.
void encode_pattern_rows(Model& model, const std::vector<int>& rows);

// The pattern rows whose words include one of `words` (word ids), ascending.
std::vector<int> patterns_reading(const Model& model, const std::vector<ad::Index>& words);

// Of `names`, those the model does not know as predicates and that are
// patterns: what with_patterns would add.
std::vector<std::string> unseen_patterns(const Model& model, const std::vector<std::string>& names);
// A copy of `model` that also knows the patterns `names` (new predicates with
// no facts, their rows encoded from the words the model learnt), so that a
// trained model can rank and prove atoms of a phrase it never saw. Throws
// std::invalid_argument naming the first name that is not a well-formed
// pattern, a word of one that no pattern in training had, or a model with
// rule attention or conditional rules (whose tables are shaped by the
// predicate count).
Model with_patterns(const Model& model, const std::vector<std::string>& names);

// Moves the gradient on the touched pattern rows of Model::predicates to the
// word table through the encoder, and forgets those rows, so that the
// optimiser moves words and never a pattern row itself.
void push_pattern_gradients(Model& model);

}  // namespace ntp
