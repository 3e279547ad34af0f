// ntp/train/candidates_on_dev.h: finished runs compared on the same dev facts.
//
// A choice that trains one model per candidate (an L2 value, the file's
// templates or mined ones: train.h) keeps one by how the final models rank
// dev (the best; for templates, template_candidate_kept). The models are ranked on the same dev atoms in the same rounds
// (rank_in_rounds), each round under every model in turn, so that however a
// time budget or a stop ends the rounds, every candidate has been measured
// on the same atoms, and paired differences can tell a gain from noise.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/training_data.h"

#include <iosfwd>
#include <vector>

namespace ntp {

// What a choice measured of one candidate's final model.
struct CandidateOnDev {
  double final_mrr = 0;            // its dev MRR as `ntp eval` ranks with the model
  std::vector<double> reciprocal;  // each dev side's reciprocal rank behind that figure
  double proofs_mrr = 0;           // the dev MRR of its proofs alone (`--score proof`)
};

// The candidates, as the models were given (empty when no round ran), and
// how far the rounds got.
struct CandidatesOnDev {
  std::vector<CandidateOnDev> candidates;
  RoundsDone done;
};

// `models[i]`, trained on `data[i]` (the same ranked dev facts), each
// ranked on at most kCombineChoiceDevAtoms of them as `ntp eval` ranks with
// it (its kept mined rules included: mined_rules_choice.h) and, if
// `proofs_alone`, by its proofs alone (else proofs_mrr stays 0), in rounds
// within `limits`; `progress` (may be null) gets a line every few seconds.
CandidatesOnDev measure_candidates_on_dev(const std::vector<const Model*>& models,
                                          const std::vector<const TrainingData*>& data, bool proofs_alone,
                                          const ChoiceLimits& limits = {}, std::ostream* progress = nullptr);

}  // namespace ntp
