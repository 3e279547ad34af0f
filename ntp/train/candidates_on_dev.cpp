// ntp/train/candidates_on_dev.cpp: finished runs compared on the same dev
// facts (see candidates_on_dev.h).
#include "ntp/train/candidates_on_dev.h"

#include "ntp/eval/evaluate.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/mined_rules_choice.h"
#include "ntp/train/rule_choice.h"

#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace ntp {

CandidatesOnDev measure_candidates_on_dev(const std::vector<const Model*>& models,
                                          const std::vector<const TrainingData*>& data, bool proofs_alone,
                                          const ChoiceLimits& limits, std::ostream* progress) {
  if (models.empty() || models.size() != data.size())
    throw std::invalid_argument("measure_candidates_on_dev: one training data a model");
  for (const TrainingData* d : data)
    if (d->dev != data.front()->dev) throw std::invalid_argument("measure_candidates_on_dev: the dev facts differ");
  struct Candidate {
    ScoreOptions final_scoring, proofs_scoring;  // the exact index, as `ntp eval` ranks; built once for both
    std::unordered_set<Atom, AtomHash> known;
  };
  std::vector<Candidate> candidates(models.size());
  for (std::size_t i = 0; i < models.size(); ++i) {
    Candidate& c = candidates[i];
    c.final_scoring.facts = make_fact_index(*models[i], "exact");
    c.proofs_scoring = c.final_scoring;
    c.proofs_scoring.source = ScoreSource::ProofOnly;
    c.known = filter_set(*models[i], data[i]->dev);
  }
  // Variants, in order: each model's final ranking, then (if asked) its proofs alone.
  const std::size_t per_model = proofs_alone ? 2 : 1;
  const std::vector<Atom> atoms = dev_facts_measured(*data.front(), kCombineChoiceDevAtoms);
  ReciprocalsInRounds gathered = reciprocals_in_rounds(
      atoms, limits, progress, "under each candidate", models.size() * per_model,
      [&](const std::vector<Atom>& round, const CutAsked& cut) {
        std::vector<RankingResult> each;
        for (std::size_t i = 0; i < models.size(); ++i) {
          const Candidate& c = candidates[i];
          for (std::size_t kind = 0; kind < per_model; ++kind) {
            each.push_back(kind == 0 ? rank_with_kept_rules(*models[i], *data[i], round, c.known, c.final_scoring,
                                                            cut.ranking())
                                     : evaluate_ranking(*models[i], round, c.known, c.proofs_scoring, cut.ranking()));
            if (cut.ended(each.back())) return std::vector<RankingResult>{};
          }
        }
        return each;
      });
  CandidatesOnDev measured;
  measured.done = gathered.done;
  if (measured.done.atoms == 0) return measured;
  for (std::size_t i = 0; i < models.size(); ++i) {
    CandidateOnDev one;
    std::vector<double>& final_sides = gathered.reciprocal[i * per_model];
    one.final_mrr = mean_of(final_sides);
    if (proofs_alone) one.proofs_mrr = mean_of(gathered.reciprocal[i * per_model + 1]);
    one.reciprocal = std::move(final_sides);
    measured.candidates.push_back(std::move(one));
  }
  return measured;
}

}  // namespace ntp
