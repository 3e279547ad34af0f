// ntp/train/mined_templates.cpp: templates mined from the training facts (see
// mined_templates.h).
#include "ntp/train/mined_templates.h"

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

std::size_t template_candidate_kept(const std::vector<CandidateOnDev>& candidates, bool* decided_by_proofs) {
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
