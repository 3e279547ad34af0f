// ntp/train/dev_metric.h: the metric a run measures on its dev atoms to keep
// the best model (RunOptions::eval_every, Keep::Best): filtered MRR over the
// dev facts (the ranking protocol), or for a labelled dev file (WN11)
// accuracy with per-relation thresholds chosen on dev itself.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/training_data.h"

#include <string>

namespace ntp {

// "mrr" or "accuracy"; "" without dev atoms.
std::string dev_metric_name(const TrainingData& data);
// The metric's value for `model`; -1 without dev atoms.
double dev_metric(const Model& model, const TrainingData& data);

}  // namespace ntp
