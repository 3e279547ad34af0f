// ntp/model/induced_rule.h: a rule read out of a trained model (rules.h), as
// plain data for people and programs.
#pragma once

#include <string>
#include <vector>

namespace ntp {

struct InducedRule {
  int rule = -1;          // index into Model::rules
  double confidence = 0;  // min over slots of exp(-‖θ_slot - θ_predicate‖), or of the attention weight
  std::string text;       // e.g. "locatedIn(X, Y) :- locatedIn(X, Z), locatedIn(Z, Y)"
  // For a rule that started as a mined rule (Template::slot_starts): that
  // rule, and its confidence on the training facts; "" and -1 otherwise.
  std::string started_from;
  double mined_confidence = -1;
};

// A rule mined from a model's training facts and judged by the model
// (eval/completed_confidence.h): its confidence on the training facts, and
// on them completed by the facts the model infers.
struct JudgedRule {
  std::string text;             // e.g. "parentOf(X, Y) :- fatherOf(X, Y)"
  double confidence = 0;        // on the training facts completed by the model
  double counted_confidence = 0;  // on the training facts alone (AMIE's standard confidence)
  long long pairs = 0;          // body pairs judged (at most kMaxPairsJudged)
  long long inferred = 0;       // of those, not training facts but held true by the model
};

// The rules a model judges, and its baseline: the share of random
// corruptions of its facts it holds true.
struct JudgedRules {
  std::vector<JudgedRule> rules;  // highest confidence first
  double random_belief = 0;
};

}  // namespace ntp
