// ntp/train/combine_choice.cpp: choosing the combine rule on dev (see combine_choice.h).
#include "ntp/train/combine_choice.h"

#include "ntp/index/make_fact_index.h"
#include "ntp/train/dev_metric.h"

#include <chrono>
#include <cstdio>
#include <ostream>
#include <stdexcept>

namespace ntp {

void check_combine_choice(bool complex, const TrainingData& data) {
  if (!complex) throw std::invalid_argument("choosing the combine rule on dev needs an NTPλ model (--complex)");
  if (dev_metric_name(data).empty()) throw std::invalid_argument("choosing the combine rule on dev needs dev atoms");
}

CombineChoice choose_combine(Model& model, const TrainingData& data, std::size_t max_dev_atoms, std::ostream* progress) {
  check_combine_choice(model.prover.complex, data);
  CombineChoice choice;
  choice.dev_atoms = dev_atoms_measured(data, max_dev_atoms);
  ScoreOptions scoring;
  scoring.facts = make_fact_index(model, "exact");  // as `ntp eval` ranks; built once for the three
  double best = -1;
  for (Combine rule : {Combine::Mean, Combine::Max, Combine::Proof}) {
    model.prover.combine = rule;
    const auto start = std::chrono::steady_clock::now();
    const double metric = dev_metric(model, data, scoring, max_dev_atoms);
    choice.measured.emplace_back(rule, metric);
    if (progress) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      char line[96];
      std::snprintf(line, sizeof line, "  %-5s dev %s %.4f (%.1f s)", combine_name(rule),
                    dev_metric_name(data).c_str(), metric, took.count());
      *progress << line << std::endl;
    }
    if (metric > best) {
      best = metric;
      choice.chosen = rule;
    }
  }
  model.prover.combine = choice.chosen;
  return choice;
}

std::string describe(const CombineChoice& choice, const std::string& metric) {
  std::vector<std::pair<std::string, double>> measured;
  for (const auto& [rule, value] : choice.measured) measured.emplace_back(combine_name(rule), value);
  return describe_dev_choice(combine_name(choice.chosen), metric, choice.dev_atoms, measured);
}

}  // namespace ntp
