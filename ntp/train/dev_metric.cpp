// ntp/train/dev_metric.cpp: the dev metric (see dev_metric.h).
#include "ntp/train/dev_metric.h"

#include "ntp/eval/ranking.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace ntp {

namespace {

// Every step-th item of `all` so that at most `max_items` remain (0: all).
template <typename T>
std::vector<T> spread_sample(const std::vector<T>& all, std::size_t max_items) {
  if (max_items == 0 || all.size() <= max_items) return all;
  std::vector<T> sample;
  for (std::size_t i = 0; i < max_items; ++i) sample.push_back(all[i * all.size() / max_items]);
  return sample;
}

}  // namespace

std::string dev_metric_name(const TrainingData& data) {
  if (!data.dev_labelled.empty()) return "accuracy";
  return data.dev.empty() ? "" : "mrr";
}

std::size_t dev_atoms_measured(const TrainingData& data, std::size_t max_atoms) {
  const std::size_t all = data.dev_labelled.empty() ? data.dev.size() : data.dev_labelled.size();
  return max_atoms == 0 ? all : std::min(all, max_atoms);
}

std::vector<Atom> dev_facts_measured(const TrainingData& data, std::size_t max_atoms) {
  return spread_sample(data.dev, max_atoms);
}

double dev_metric(const Model& model, const TrainingData& data, const ScoreOptions& scoring, std::size_t max_atoms) {
  if (!data.dev_labelled.empty()) {
    std::vector<Atom> atoms;
    std::vector<int> labels;
    for (const LabelledAtom& l : spread_sample(data.dev_labelled, max_atoms)) {
      atoms.push_back(l.atom);
      labels.push_back(l.label);
    }
    return evaluate_classification(model, atoms, labels, atoms, labels, scoring).dev_accuracy_per_relation;
  }
  if (data.dev.empty()) return -1;
  return evaluate_ranking(model, dev_facts_measured(data, max_atoms), filter_set(model, data.dev), scoring).mean_ties.mrr;
}

std::string atoms_text(std::size_t atoms) { return std::to_string(atoms) + (atoms == 1 ? " atom" : " atoms"); }

std::string describe_dev_choice(const std::string& chosen, const std::string& metric, std::size_t atoms,
                                const std::vector<std::pair<std::string, double>>& measured) {
  std::string s = chosen + " (dev " + metric + " on " + atoms_text(atoms) + ":";
  for (std::size_t i = 0; i < measured.size(); ++i) {
    char value[32];
    std::snprintf(value, sizeof value, " %.4f", measured[i].second);
    s += std::string(i ? "," : "") + " " + measured[i].first + value;
  }
  return s + ")";
}

}  // namespace ntp
