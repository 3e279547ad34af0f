// ntp/model/rules.h: reading induced rules out of a trained model.
//
// Every learnable slot of an instantiated rule is replaced by the KB predicate
// whose embedding is nearest to it; the rule's confidence is the smallest
// kernel between a slot and the predicate chosen for it (a rule is only as
// believable as its least certain predicate). With rule attention
// (rule_attention.h) a slot is read as the predicate it attends to most, and
// its attention weight takes the kernel's place.
#pragma once

#include "ntp/model/induced_rule.h"
#include "ntp/model/model.h"

#include <string>
#include <vector>

namespace ntp {

// Rules with confidence >= min_confidence, highest confidence first; a
// conditional rule once for every KB predicate of its head's arity.
std::vector<InducedRule> induced_rules(const Model& model, double min_confidence);

// Rule `rule` (a Model::rules index) read as it proves an atom of predicate
// row `goal_row`: a conditional rule reads differently for every goal
// (conditional.h); the others ignore the row.
InducedRule read_rule(const Model& model, int rule, int goal_row);

// Every plain rule's reading and confidence, by rule index (Model::rules
// order; "" for a conditional rule: read_rule), for explaining proofs.
struct RuleReadings {
  std::vector<std::string> text;
  std::vector<double> confidence;
};
RuleReadings read_rules(const Model& model);

}  // namespace ntp
