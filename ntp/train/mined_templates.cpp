// ntp/train/mined_templates.cpp: templates mined from the training facts (see
// mined_templates.h).
#include "ntp/train/mined_templates.h"

#include "ntp/mine/miner.h"
#include "ntp/mine/rules_file.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/mined_rules_choice.h"
#include "ntp/train/rule_choice.h"

#include <algorithm>
#include <map>
#include <utility>

namespace ntp {

namespace {

std::vector<MinedRule> mine_chains(const KnowledgeBase& kb, int max_body_atoms) {
  MineOptions o;
  o.constant_rules = false;
  o.max_body_atoms = max_body_atoms;
  return mine_rules(kb, o).rules;
}

// The first `n` rules of each head (the miner sorts a head's rules best first).
std::vector<MinedRule> first_of_each_head(std::vector<MinedRule> rules, int n) {
  std::map<int, int> kept;  // head -> rules kept
  rules.erase(std::remove_if(rules.begin(), rules.end(), [&kept, n](const MinedRule& r) { return kept[r.head]++ >= n; }),
              rules.end());
  return rules;
}

}  // namespace

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
  std::vector<MinedRule> rules = mine_chains(data.kb, 2);
  if (can_choose_mined_rules(data)) {
    std::vector<Atom> known = data.dev;
    known.insert(known.end(), data.test.begin(), data.test.end());
    std::vector<NamedRuleSet> sets = {{"chains", std::move(rules)}, {"one-atom", mine_chains(data.kb, 1)}};
    RuleSetChoice choice = choose_rule_set(data.kb, std::move(sets), dev_facts_measured(data, kCombineChoiceDevAtoms), known);
    rules = std::move(choice.kept);
    set.description = choice.description;
  } else {
    set.description = "chains (no ranked dev facts to choose on)";
  }
  set.templates = mined_templates(first_of_each_head(std::move(rules), kMinedTemplatesPerHead), kMinedTemplatesKeyword);
  set.rules_per_goal = most_templates_of_one_head(set.templates);
  return set;
}

}  // namespace ntp
