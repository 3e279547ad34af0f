// ntp/train/width_choice.cpp: choosing the proof search width on dev (see width_choice.h).
#include "ntp/train/width_choice.h"

#include "ntp/index/make_fact_index.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/rule_choice.h"

#include <cstdio>
#include <ostream>

namespace ntp {

bool can_choose_width(const Model& model, const TrainingData& data) {
  const bool scores_by_proofs = !(model.prover.complex && model.prover.combine == Combine::Complex);
  return model.prover.k_facts > 0 && scores_by_proofs && !data.dev.empty();
}

namespace {

// The widths tried for a model trained with k facts per `or` step.
std::vector<int> widths_for(int k) {
  std::vector<int> widths;
  for (int factor : kWidthFactors) widths.push_back(factor * k);
  return widths;
}

// Ranked dev facts: each width's MRR on the same atoms, round by round until
// all are ranked, the budget has run out or a stop is asked for.
void measure_in_rounds(Model& model, const TrainingData& data, const ScoreOptions& scoring, std::size_t max_dev_atoms,
                       const ChoiceLimits& limits, std::ostream* progress, const std::vector<int>& widths,
                       WidthChoice& choice) {
  const VariantsMeasured measured =
      measure_variants(model, data, scoring, max_dev_atoms, limits, progress, "with the proofs alone at each width",
                       widths.size(), [&widths](Model& m, std::size_t w) { m.prover.k_facts = widths[w]; });
  choice.dev_atoms = measured.done.atoms;
  choice.over_budget = measured.done.over_budget;
  choice.stopped = measured.done.stopped;
  for (std::size_t w = 0; w < measured.mrr.size(); ++w) choice.measured.emplace_back(widths[w], measured.mrr[w]);
  choice.reciprocal = measured.reciprocal;
}

}  // namespace

WidthChoice choose_width(Model& model, const TrainingData& data, std::size_t max_dev_atoms, std::ostream* progress,
                         const ChoiceLimits& limits) {
  WidthChoice choice;
  choice.chosen = model.prover.k_facts;  // kept when nothing is measured
  if (!can_choose_width(model, data)) return choice;
  choice.dev_atoms = dev_atoms_measured(data, max_dev_atoms);
  const std::vector<int> widths = widths_for(model.prover.k_facts);
  ScoreOptions scoring;
  scoring.source = ScoreSource::ProofOnly;
  scoring.facts = make_fact_index(model, "exact");  // as `ntp eval` ranks; built once for every width
  measure_in_rounds(model, data, scoring, max_dev_atoms, limits, progress, widths, choice);
  if (progress)
    for (const auto& [width, metric] : choice.measured) {
      char line[64];
      std::snprintf(line, sizeof line, "  k %-3d dev %s %.4f", width, dev_metric_name(data).c_str(), metric);
      *progress << line << std::endl;
    }
  if (!choice.reciprocal.empty() && choice.reciprocal.front().size() >= 2)
    choice.chosen = widths[first_within_noise_of_best(choice.reciprocal)];
  model.prover.k_facts = choice.chosen;
  return choice;
}

std::string describe(const WidthChoice& choice, const std::string& metric) {
  std::vector<std::pair<std::string, double>> measured;
  for (const auto& [width, value] : choice.measured) measured.emplace_back(std::to_string(width), value);
  return describe_dev_choice(std::to_string(choice.chosen), metric + " of the proofs alone", choice.dev_atoms, measured) +
         rounds_cut_note(choice.over_budget, choice.stopped, choice.dev_atoms);
}

}  // namespace ntp
