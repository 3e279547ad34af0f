// ntp/eval/rule_keys.h: keys that order atoms against one another by the
// mined rules predicting them, for a protocol that ranks a pool of atoms
// (Countries' AUC-PR over every country and region) rather than the sides of
// one atom (rule_ranking.h).
//
// Each atom r(s, o) is predicted by the rules with head r whose body walks
// from s to o over the KB's facts (relation_graph.h); its evidence is the
// list of their confidences, highest first (and under paths, each
// confidence times its rule's share of paths, rule_ranking.h). The keys
// order atoms
//   by the rules alone      max: the lists compared best first
//                           (compare_confidences); noisy-or: 1 - prod(1 - c);
//                           paths: 1 - prod(1 - c * share);
//   rules first             as alone, the model's keys ordering what they tie;
//   rules beside the model  the model's key plus `weight` times the rules'
//                           value: the best confidence under max, else the
//                           aggregate (with_rule_evidence, the formula the
//                           ranking protocol, answers and proofs use).
// An atom no rule predicts has an empty list, below every predicted one.
#pragma once

#include "ntp/eval/rule_ranking.h"

#include <vector>

namespace ntp {

struct RuleEvidence {
  RuleAggregation aggregation = RuleAggregation::Max;
  // Empty: the rules alone. Else one key per atom, and `weight`: infinite
  // for rules first, finite (> 0) for rules beside the model.
  std::vector<RankKey> model_keys;
  double weight = 0;
};

// What the rules predicting each binary atom say of it: their confidences,
// highest first, and aggregates (an empty prediction where none does).
// Throws std::invalid_argument for an atom that is not binary.
std::vector<RulePrediction> atom_predictions(const KnowledgeBase& kb, const std::vector<MinedRule>& rules,
                                             const std::vector<Atom>& atoms);

// One key per atom, as `evidence` says (above); rules walked over kb.facts.
std::vector<RankKey> rule_evidence_keys(const KnowledgeBase& kb, const std::vector<MinedRule>& rules,
                                        const std::vector<Atom>& atoms, const RuleEvidence& evidence);

}  // namespace ntp
