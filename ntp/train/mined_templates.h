// ntp/train/mined_templates.h: a prover that starts from the rules its
// training facts support (`ntp train --templates mined`).
//
// The rules are mined from the training facts (mine/miner.h, no rules with a
// constant, which have no template form), each head's most confident
// kMinedTemplatesPerHead kept, and each becomes a template whose every
// predicate is a slot starting at that predicate's embedding
// (mined_templates, mine/rules_file.h). A goal then tries the rules nearest
// its own predicate, as many as one head has (most_templates_of_one_head:
// TrainingData::rules_per_goal, the --k-rules a run takes unless given one): the rules of its own relation
// while the slots sit where they started, so a KB of many relations costs a
// goal ten rules, not every relation's.
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/model/model.h"
#include "ntp/train/candidates_on_dev.h"
#include "ntp/train/training_data.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ntp {

// The `--templates` value that asks for mined templates.
inline constexpr const char* kMinedTemplatesKeyword = "mined";

// Rules kept per head. A prover with ten a relation ranks Nations' dev facts
// with its proofs alone at 0.83-0.86 (seeds 0-2) against 0.74-0.79 for the
// 60 slots of nations.nlt, and trains 5x faster; twenty ranked seed 0 lower
// (0.845 against 0.863). docs/results/mined_rules.md.
constexpr int kMinedTemplatesPerHead = 10;

struct MinedTemplateSet {
  std::vector<Template> templates;
  std::string description;  // "chains (dev mrr on 199 atoms: chains 0.7503, one-atom 0.8366)"
};

// Mines `data.kb`'s facts. With ranked binary dev facts (data.dev, not a
// labelled file), the chains of two and the one-atom rules are each ranked
// against at most kCombineChoiceDevAtoms of them (test facts filtered as
// true) and the chains kept unless the one-atom rules rank clearly better
// (choose_rule_set, rule_choice.h: on Nations they do, on UMLS the chains
// carry); without, the chains. Then kMinedTemplatesPerHead a head.
MinedTemplateSet mine_templates(const TrainingData& data);

// `data` with mined_templates' rules as its templates in place of its own,
// its rules_per_goal and templates_note set (what `--templates mined` reads).
TrainingData with_mined_templates(TrainingData data);

// Whether a run given `data` also trains a prover started from mined
// templates and keeps the one that ranks dev better (RunOptions::
// mined_templates_on_dev): its templates are a file's random slots (not
// already mined), it has ranked binary dev facts to choose on, and at most
// kMaxFactsToChooseTemplates facts, since the choice trains a second model.
bool can_choose_templates(const TrainingData& data);

// The largest KB whose templates are chosen on dev. Each relation's ten
// chain rules cost a goal ten rules of two atoms, which on the small
// benchmarks trains in a fourth to a sixth of the time of their shipped
// templates; on WN18RR and FB15k-237 the chains' proofs would train for
// hours beside a ComplEx model that trains in minutes.
constexpr std::size_t kMaxFactsToChooseTemplates = 20000;

// The candidate kept (candidates[0] is the file's): one whose final model
// ranks dev clearly better than the other's (rule_choice.h's margin) wins;
// within noise of each other, the one whose proofs alone rank dev better
// (the first on a tie), so that the prover carries as much of the ranking
// as dev allows. `decided_by_proofs` (may be null) says which way it went.
std::size_t template_candidate_kept(const std::vector<CandidateOnDev>& candidates,
                                    bool* decided_by_proofs = nullptr);

// The most templates that share one head predicate (the head a mined
// template's first slot starts at); 0 when no template has a fixed start.
int most_templates_of_one_head(const std::vector<Template>& templates);

}  // namespace ntp
