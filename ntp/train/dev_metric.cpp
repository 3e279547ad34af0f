// ntp/train/dev_metric.cpp: the dev metric (see dev_metric.h).
#include "ntp/train/dev_metric.h"

#include "ntp/eval/evaluate.h"
#include "ntp/eval/ranking.h"

#include <vector>

namespace ntp {

std::string dev_metric_name(const TrainingData& data) {
  if (!data.dev_labelled.empty()) return "accuracy";
  return data.dev.empty() ? "" : "mrr";
}

double dev_metric(const Model& model, const TrainingData& data) {
  if (!data.dev_labelled.empty()) {
    std::vector<Atom> atoms;
    std::vector<int> labels;
    for (const LabelledAtom& l : data.dev_labelled) {
      atoms.push_back(l.atom);
      labels.push_back(l.label);
    }
    return evaluate_classification(model, atoms, labels, atoms, labels).dev_accuracy_per_relation;
  }
  if (data.dev.empty()) return -1;
  return evaluate_ranking(model, data.dev, filter_set(model, data.dev)).mean_ties.mrr;
}

}  // namespace ntp
