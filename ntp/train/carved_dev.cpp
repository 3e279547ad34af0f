// ntp/train/carved_dev.cpp: dev facts held out of the training facts (see carved_dev.h).
#include "ntp/train/carved_dev.h"

#include "ntp/kb/pattern.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/mined_templates.h"

#include <algorithm>
#include <random>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ntp {

namespace {

std::size_t binary_facts(const KnowledgeBase& kb) {
  return static_cast<std::size_t>(std::count_if(kb.facts.begin(), kb.facts.end(), [](const Atom& a) { return a.args.size() == 2; }));
}

}  // namespace

bool carves_dev(const TrainingData& data, const ModelOptions& model, const RunOptions& run) {
  // A dev metric every N epochs without dev facts stays the error it was (train.h).
  if (!run.dev_from_train || !data.dev.empty() || !data.dev_labelled.empty() || run.eval_every > 0) return false;
  const std::size_t facts = binary_facts(data.kb);
  if (facts < kMinFactsToCarveDev || data.kb.facts.size() > kMaxFactsToCarveDev) return false;
  const bool chooses_combine = run.combine_from != CombineFrom::Given && model.prover.complex;
  return run.l2_choices.size() >= 2 || chooses_combine || run.mined_rules_on_dev;
}

namespace {

// The facts dev may hold out: the binary ones, and of those only the facts of
// relations when the KB has any. A fact stated through a textual pattern
// (kb/pattern.h) is evidence for the relations, not a question anyone asks:
// which phrase a text used is not what the choices should be made on.
std::vector<std::size_t> dev_candidates(const KnowledgeBase& kb) {
  std::vector<char> pattern(static_cast<std::size_t>(kb.predicates.size()));
  for (int p = 0; p < kb.predicates.size(); ++p) pattern[static_cast<std::size_t>(p)] = is_pattern(kb.predicates.name(p));
  std::vector<std::size_t> binary, relations;
  for (std::size_t i = 0; i < kb.facts.size(); ++i) {
    if (kb.facts[i].args.size() != 2) continue;
    binary.push_back(i);
    if (!pattern[static_cast<std::size_t>(kb.facts[i].predicate)]) relations.push_back(i);
  }
  return relations.empty() ? binary : relations;
}

// Templates the run mined from its facts (`--templates mined`), mined again
// from the facts left, so that no rule counts a held-out one; with no dev
// facts to choose a shape on, as the data's own were: the chains.
void mine_templates_again(TrainingData& carved) {
  TrainingData left;
  left.kb = carved.kb;
  left = with_mined_templates(std::move(left));
  carved.kb.templates = std::move(left.kb.templates);
  carved.rules_per_goal = left.rules_per_goal;
  carved.templates_note = std::move(left.templates_note);
}

}  // namespace

TrainingData carve_dev(const TrainingData& data, std::uint64_t seed) {
  std::vector<std::size_t> binary = dev_candidates(data.kb);
  const std::size_t held = std::min(kCombineChoiceDevAtoms,
                                    std::max<std::size_t>(1, static_cast<std::size_t>(kCarvedDevShare * binary.size())));
  // The first `held` of a partial Fisher-Yates shuffle (the same draw on every platform).
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < held && i + 1 < binary.size(); ++i)
    std::swap(binary[i], binary[i + rng() % (binary.size() - i)]);
  std::unordered_set<std::size_t> out(binary.begin(), binary.begin() + static_cast<std::ptrdiff_t>(held));

  TrainingData carved;
  carved.kb.predicates = data.kb.predicates;
  carved.kb.constants = data.kb.constants;
  carved.kb.templates = data.kb.templates;
  for (std::size_t i = 0; i < data.kb.facts.size(); ++i) {
    if (out.count(i)) carved.dev.push_back(data.kb.facts[i]);
    else carved.kb.add_fact(data.kb.facts[i]);
  }
  carved.test = data.test;
  if (data.rules_per_goal > 0) mine_templates_again(carved);
  return carved;
}

std::string carved_choice_path(const std::string& model_path) { return model_path + ".dev-choice"; }

}  // namespace ntp
