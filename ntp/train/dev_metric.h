// ntp/train/dev_metric.h: the metric a run measures on its dev atoms to keep
// the best model (RunOptions::eval_every, Keep::Best) and to choose an NTPλ
// model's combine rule (combine_choice.h): filtered MRR over the dev facts
// (the ranking protocol), or for a labelled dev file (WN11) accuracy with
// per-relation thresholds chosen on dev itself.
#pragma once

#include "ntp/eval/evaluate.h"
#include "ntp/model/model.h"
#include "ntp/train/training_data.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ntp {

// "mrr" or "accuracy"; "" without dev atoms.
std::string dev_metric_name(const TrainingData& data);
// How many dev atoms the metric measures: all of them, or at most
// `max_atoms` (0 = no limit) spread evenly over the dev file.
std::size_t dev_atoms_measured(const TrainingData& data, std::size_t max_atoms);
// The dev facts a ranking metric measures (not for a labelled dev file):
// all of them, or `max_atoms` spread evenly over the file.
std::vector<Atom> dev_facts_measured(const TrainingData& data, std::size_t max_atoms);
// The metric's value for `model` scored as `scoring` says; -1 without dev
// atoms. A filtered ranking filters every dev fact, measured or not.
double dev_metric(const Model& model, const TrainingData& data, const ScoreOptions& scoring = {},
                  std::size_t max_atoms = 0);

// "1 atom", "N atoms".
std::string atoms_text(std::size_t atoms);

// A choice made on dev, and what each option measured: "CHOSEN (dev METRIC
// on ATOMS atoms: a 0.1234, b 0.5678)" (the combine rule, the L2 value).
std::string describe_dev_choice(const std::string& chosen, const std::string& metric, std::size_t atoms,
                                const std::vector<std::pair<std::string, double>>& measured);

}  // namespace ntp
