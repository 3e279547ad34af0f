// ntp/train/carved_dev.h: dev facts held out of the training facts, for a
// run given none.
//
// The defaults choose three things on dev (L2, the combine rule, mined rules
// beside the model), so a user with a training file alone (Countries ships no
// usable dev split) would get none of them. Instead, on a KB small enough to
// train three times over (at most kMaxFactsToCarveDev facts), the run holds
// out kCarvedDevShare of the binary training facts (of relations, not of
// textual patterns, when it has both; at most
// kCombineChoiceDevAtoms, drawn with the run's seed), makes its choices with
// models trained on the rest, and then trains the model on every fact with
// the values chosen (train.h); the mined rules it keeps are mined again from
// every fact, with the body length and weight chosen.
#pragma once

#include "ntp/train/options.h"
#include "ntp/train/training_data.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ntp {

constexpr double kCarvedDevShare = 0.1;
constexpr std::size_t kMaxFactsToCarveDev = 20000;
constexpr std::size_t kMinFactsToCarveDev = 50;  // fewer: too few dev facts to tell the choices apart

// Whether a run carves its dev facts: asked to (RunOptions::dev_from_train),
// given no dev facts, of a size within the bounds above, and with something
// to choose (several L2 values, the combine rule of an NTPλ model, or mined
// rules).
bool carves_dev(const TrainingData& data, const ModelOptions& model, const RunOptions& run);

// `data` with dev facts held out of its KB: the same symbols and templates,
// the facts but those drawn (with `seed`), which become its dev facts.
// Templates the run mined itself (TrainingData::rules_per_goal > 0) are
// mined again from the facts left.
TrainingData carve_dev(const TrainingData& data, std::uint64_t seed);

// Where the run that chooses on carved dev facts writes its model: "M.dev-choice".
std::string carved_choice_path(const std::string& model_path);

}  // namespace ntp
