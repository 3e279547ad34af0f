// ntp/mine/mined_rule.h: a rule counted on the facts, with AMIE's measures.
//
// A mined rule h(X, Y) :- body(X, Y) has a body that is a path of steps
// (relation_graph.h) from X to Y: one atom (h(X, Y) :- r(X, Y), or the
// inverse h(X, Y) :- r(Y, X)) or a chain of two or three atoms through
// variables Z (Z1, Z2). With
// a *pair* meaning two distinct constants (x, y) that the body connects
// through distinct constants (object identity), Galárraga et al.'s measures
// (AMIE, WWW 2013) are:
//   support         pairs of the body that are facts of h
//   head coverage   support / facts of h
//   confidence      support / pairs of the body
//   PCA confidence  support / pairs of the body whose x already has some
//                   h(x, y') fact (the partial completeness assumption: a
//                   subject with one known h fact has all of them known);
//                   for a head that is more functional the other way round
//                   (fewer facts per object than per subject), whose y has
//                   some h(x', y) fact.
//
// A rule with a constant (AnyBURL's acyclic rules of one atom) predicts
// h(v, c) (or h(c, v)) for every v other than c that has one edge
// (relation_graph.h) to a given constant d, or to anything:
//   h(X, c) :- r(X, d)     h(X, c) :- r(X, Z)     h(c, Y) :- r(d, Y) ...
// Its pairs are the V values the body holds for (V != c), its support those
// of them with the head fact; PCA counts the V with some fact of h on V's side.
// Such a rule is often counted on a handful of pairs (2 of 2: confidence 1),
// so its confidences count kConstantRulePrior more pairs that fail
// (AnyBURL's correction): 2 of 2 scores 2/7. Chosen on dev: ranking with
// them, Nations, UMLS and Kinship 0.7189, 0.8876, 0.6685 uncorrected, 0.7651,
// 0.9573, 0.7144 corrected (chain rules alone: 0.7503, 0.9539, 0.6781).
#pragma once

#include "ntp/kb/kb.h"

#include <string>
#include <vector>

namespace ntp {

struct MinedRule {
  int head = -1;           // the head's KB predicate
  std::vector<int> body;   // steps from X to Y (relation_graph.h)
  long long support = 0;
  double body_pairs = 0;   // pairs of the body
  double pca_pairs = 0;    // of those, on the head's known side (PCA)
  bool estimated = false;  // body_pairs and pca_pairs scaled up from a sample of X values
  double head_coverage = 0, confidence = 0, pca_confidence = 0;
  // A rule with a constant (above): the head's argument that is the constant
  // (0 or 1; -1 for a chain rule), the constant, and the constant that the
  // body's one step from V ends at (-1: a free variable Z).
  int constant_arg = -1;
  int head_constant = -1;
  int body_constant = -1;
};

inline bool has_constant(const MinedRule& rule) { return rule.constant_arg >= 0; }

inline constexpr double kConstantRulePrior = 5;

// Fills the three ratios from the counts and the head's fact count (with
// kConstantRulePrior for a rule with a constant).
void set_measures(MinedRule& rule, long long head_facts);

// "h(X, Y) :- r(X, Z), s(Y, Z)": the rule in the .nlt syntax, its
// predicates by name (a chain's middle variable is Z; of three atoms, Z1, Z2).
std::string rule_text(const KnowledgeBase& kb, const MinedRule& rule);

}  // namespace ntp
