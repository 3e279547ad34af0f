// ntp/model/complex.h: ComplEx (Trouillon et al., 2016), the neural link predictor
// of "NTPλ". It shares the prover's embedding tables: the first half of a row
// is the real part, the second half the imaginary part, and
//     score(p(s, o)) = sigmoid(Re(Σ_i p_i s_i conj(o_i)))
//                    = sigmoid(Σ p_re s_re o_re + p_re s_im o_im + p_im s_re o_im - p_im s_im o_re).
// With it on, training minimises the sum of both cross-entropies, and an atom's
// score joins its proof score and its ComplEx score by the model's Combine rule
// (model.h): their max (NTP.md), their mean, or the proof score alone.
#pragma once

#include "autodiff/tape.h"
#include "ntp/model/model.h"

#include <vector>

namespace ntp {

// (atoms, 1): ComplEx probabilities of binary atoms, on the tape.
ad::Var complex_scores(ad::Tape& tape, Model& model, const std::vector<Atom>& atoms);
// The same without a tape.
std::vector<double> complex_scores(const Model& model, const std::vector<Atom>& atoms);

// ComplEx probabilities of `atom` with every constant at argument `slot`
// (C): one matrix-vector product, as the score is linear in each argument.
// Equal to complex_scores of each grounding up to rounding (summation order).
std::vector<double> complex_scores_at(const Model& model, const Atom& atom, int slot);

// (atoms, d): for each binary atom the row w such that the ComplEx logit of
// the atom with constant c at argument `slot` is w · θ_c, on the tape (the
// row complex_scores_at multiplies by). ComplEx's 1-vs-all loss scores every
// constant of a batch at once as W Θᵀ.
ad::Var complex_query_rows(ad::Tape& tape, Model& model, const std::vector<Atom>& atoms, int slot);

// An NTPλ score from an atom's proof score and ComplEx score.
double join_scores(Combine rule, double proof, double link);
// The least proof score whose join with `link` reaches `target` (0 when any
// does): what a candidate's proofs must reach to score at least `target`.
double least_proof_score(Combine rule, double target, double link);

}  // namespace ntp
