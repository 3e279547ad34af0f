// ntp/train/mined_templates.cpp: templates mined from the training facts (see
// mined_templates.h).
#include "ntp/train/mined_templates.h"

#include "ntp/eval/evaluate.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/rules_file.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/mined_rules_choice.h"
#include "ntp/train/rule_choice.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace ntp {

int most_templates_of_one_head(const std::vector<Template>& templates) {
  std::map<int, int> per_head;
  int most = 0;
  for (const Template& t : templates)
    if (!t.slot_starts.empty() && t.head.predicate.is_slot)
      most = std::max(most, ++per_head[t.slot_starts[static_cast<std::size_t>(t.head.predicate.id)]]);
  return most;
}

MinedTemplateSet mine_templates(const TrainingData& data) {
  MinedTemplateSet set;
  std::vector<MinedRule> rules = mine_with_bodies_of(data.kb, 2, false);
  if (can_choose_mined_rules(data)) {
    std::vector<Atom> known = data.dev;
    known.insert(known.end(), data.test.begin(), data.test.end());
    std::vector<NamedRuleSet> sets = {{"chains", std::move(rules)}, {"one-atom", mine_with_bodies_of(data.kb, 1, false)}};
    RuleSetChoice choice = choose_rule_set(data.kb, std::move(sets), dev_facts_measured(data, kCombineChoiceDevAtoms), known);
    rules = std::move(choice.kept);
    set.description = choice.description;
  } else {
    set.description = "chains (no ranked dev facts to choose on)";
  }
  keep_best_per_head(rules, kMinedTemplatesPerHead);
  set.templates = mined_templates(rules, kMinedTemplatesKeyword);
  return set;
}

TrainingData with_mined_templates(TrainingData data) {
  MinedTemplateSet mined = mine_templates(data);
  data.kb.templates = std::move(mined.templates);
  data.templates_note = std::move(mined.description);
  data.rules_per_goal = most_templates_of_one_head(data.kb.templates);
  return data;
}

bool can_choose_templates(const TrainingData& data) {
  const auto random_slots = [](const Template& t) { return t.slot_starts.empty(); };
  return !data.kb.templates.empty() && std::all_of(data.kb.templates.begin(), data.kb.templates.end(), random_slots) &&
         data.kb.facts.size() <= kMaxFactsToChooseTemplates && can_choose_mined_rules(data);
}

TemplateCandidatesOnDev measure_template_candidates(const std::vector<const Model*>& models,
                                                    const std::vector<const TrainingData*>& data,
                                                    const ChoiceLimits& limits, std::ostream* progress) {
  if (models.empty() || models.size() != data.size())
    throw std::invalid_argument("measure_template_candidates: one training data a model");
  struct Candidate {
    ScoreOptions final_scoring, proofs_scoring;  // the exact index, as `ntp eval` ranks; built once for both
    std::unordered_set<Atom, AtomHash> known;
    std::vector<double> final_reciprocal, proofs_reciprocal;  // [side]
  };
  std::vector<Candidate> candidates(models.size());
  for (std::size_t i = 0; i < models.size(); ++i) {
    Candidate& c = candidates[i];
    c.final_scoring.facts = make_fact_index(*models[i], "exact");
    c.proofs_scoring = c.final_scoring;
    c.proofs_scoring.source = ScoreSource::ProofOnly;
    c.known = filter_set(*models[i], data[i]->dev);
  }
  TemplateCandidatesOnDev measured;
  const std::vector<Atom> atoms = dev_facts_measured(*data.front(), kCombineChoiceDevAtoms);
  measured.done = rank_in_rounds(atoms, limits, progress, "under each candidate", [&](const std::vector<Atom>& round) {
    for (std::size_t i = 0; i < models.size(); ++i) {
      Candidate& c = candidates[i];
      for (double r : reciprocal_ranks(rank_with_kept_rules(*models[i], *data[i], round, c.known, c.final_scoring)))
        c.final_reciprocal.push_back(r);
      for (double r : reciprocal_ranks(evaluate_ranking(*models[i], round, c.known, c.proofs_scoring)))
        c.proofs_reciprocal.push_back(r);
    }
  });
  if (measured.done.atoms == 0) return measured;
  for (Candidate& c : candidates) {
    TemplateCandidateOnDev one;
    one.final_mrr = mean_of(c.final_reciprocal);
    one.proofs_mrr = mean_of(c.proofs_reciprocal);
    one.reciprocal = std::move(c.final_reciprocal);
    measured.candidates.push_back(std::move(one));
  }
  return measured;
}

std::size_t template_candidate_kept(const std::vector<TemplateCandidateOnDev>& candidates, bool* decided_by_proofs) {
  if (candidates.size() != 2) throw std::invalid_argument("template_candidate_kept: two candidates, the file's and mined");
  const std::vector<double>&file = candidates[0].reciprocal, &mined = candidates[1].reciprocal;
  std::size_t kept = candidates[1].proofs_mrr > candidates[0].proofs_mrr ? 1 : 0;
  bool by_proofs = true;
  if (file.size() >= 2 && clearly_better(mined, file)) kept = 1, by_proofs = false;
  if (file.size() >= 2 && clearly_better(file, mined)) kept = 0, by_proofs = false;
  if (decided_by_proofs) *decided_by_proofs = by_proofs;
  return kept;
}

}  // namespace ntp
