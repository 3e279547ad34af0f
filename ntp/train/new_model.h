// ntp/train/new_model.h: the model a training run starts from.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/options.h"
#include "ntp/train/training_data.h"

namespace ntp {

// A model with fresh embeddings over the data's KB (and rule attention or
// conditional rules when asked); the dev and test atoms become Model::filter_facts. Throws
// std::invalid_argument for options out of range (check_options).
Model new_model(TrainingData data, const ModelOptions& options);

}  // namespace ntp
