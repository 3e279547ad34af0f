// ntp/model/induced_rule.h: a rule read out of a trained model (rules.h), as
// plain data for people and programs.
#pragma once

#include <string>

namespace ntp {

struct InducedRule {
  int rule = -1;          // index into Model::rules
  double confidence = 0;  // min over slots of exp(-‖θ_slot - θ_predicate‖), or of the attention weight
  std::string text;       // e.g. "locatedIn(X, Y) :- locatedIn(X, Z), locatedIn(Z, Y)"
};

}  // namespace ntp
