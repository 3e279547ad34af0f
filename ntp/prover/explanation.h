// ntp/prover/explanation.h: a proof as plain data, for people and programs:
// the steps of a proof, each with the goal, the fact or rule used, the
// substitution and every symbol pair compared. No embeddings, no tape:
// the public API (ntp.h) hands these out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ntp {

// A variable and the symbol it was bound to.
struct Binding {
  std::string variable;
  std::string value;
};

// Two symbols unification compared, and the kernel between their embeddings.
struct SymbolMatch {
  std::string goal_symbol;     // from the atom being proven, e.g. "grandfatherOf"
  std::string matched_symbol;  // from the fact or rule head, e.g. "#1"
  double score = 1;            // exp(-‖θ_goal - θ_matched‖)
};

// One `or` step of a proof: an atom proven by a fact or by a rule.
struct Step {
  int depth = 0;                    // rule applications above this step (0: the query itself)
  std::string goal;                 // the atom as asked, variables by name: "#2(m15, Z)"
  bool by_rule = false;
  int id = -1;                      // index into Model::rules or Model::kb.facts
  std::string used;                 // "fatherOf(m15, m3)" or "#1(X, Y) :- #2(X, Z), #3(Z, Y)"
  std::string reading;              // a rule read with its nearest KB predicates ("" for a fact)
  double confidence = 1;            // that reading's confidence (rules.h)
  std::vector<Binding> substitution;  // what this step bound: a rule's head variables, a goal's variables
  std::vector<SymbolMatch> matches; // the symbol pairs compared
  double score = 1;                 // min over matches (1 when nothing was compared)
};

struct Proof {
  double score = 0;  // min over its steps
  std::vector<Step> steps;  // depth first, in the order the prover took them
};

struct Explanation {
  std::string atom;         // the atom proven, as the program writes atoms
  double score = 0;         // the model's score: the best proof's, joined with ComplEx for NTPλ
  double proof_score = 0;   // the best proof's score
  double complex_score = -1;  // NTPλ models: the ComplEx score; -1 otherwise
  std::string combine;        // NTPλ models: how score joins the two ("max", "mean", "proof"); "" otherwise
  std::size_t proofs_searched = 0;
  std::vector<Proof> proofs;  // best first, at most the number asked for
  // With the model's mined rules (Model::mined_rules): the most confident
  // rule predicting the atom, its confidence and how many of the rules
  // predict it; "", 0 and 0 when none does.
  std::string mined_rule;
  double mined_confidence = 0;
  int mined_rules = 0;
  // The model's weight on that confidence (Model::mined_rule_weight):
  // ranking scores the atom score + weight * mined_confidence; infinite: the
  // rules rank first. 0 when the model has no mined rules.
  double mined_weight = 0;
};

// A binding of a query's variables that the model believes, with its score.
struct Answer {
  std::vector<Binding> bindings;  // one per variable of the query, in order of appearance
  std::string atom;               // the query with the bindings put in
  double score = 0;               // the model's score of `atom`
  bool known = false;             // `atom` is a fact of the KB
  Proof best_proof;               // empty (no steps) if no proof was found
  // With the model's mined rules first (Model::mined_rules): the most
  // confident rule predicting `atom` and its confidence; "" and 0 when none does.
  std::string mined_rule;
  double mined_confidence = 0;
};

}  // namespace ntp
