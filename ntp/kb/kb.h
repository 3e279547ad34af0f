// ntp/kb/kb.h: the symbolic side of a knowledge base: interned names, ground
// atoms (facts), and rule templates with learnable predicate slots.
//
// Everything is referred to by small integer ids so that the prover can turn
// atoms into rows of embedding tables. Predicates and constants have separate
// vocabularies (and separate embedding tables). Atoms have any arity; the
// benchmark KBs are binary.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ntp {

// Names <-> dense ids, in order of first appearance.
class Vocabulary {
 public:
  int intern(const std::string& name);      // id of name, adding it if new
  int find(const std::string& name) const;  // id of name, or -1
  const std::string& name(int id) const { return names_.at(static_cast<std::size_t>(id)); }
  int size() const { return static_cast<int>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> ids_;
};

// A ground atom: predicate id and constant ids, e.g. locatedIn(palau, oceania).
struct Atom {
  int predicate = -1;
  std::vector<int> args;
  bool operator==(const Atom& o) const { return predicate == o.predicate && args == o.args; }
  bool operator!=(const Atom& o) const { return !(*this == o); }
};

struct AtomHash {
  std::size_t operator()(const Atom& a) const;
};
// A hash of a list of ids (argument tuples, merged proof states).
struct VectorHash {
  std::size_t operator()(const std::vector<int>& v) const;
};

// A term inside a rule: a variable (id local to its rule, numbered in order of
// first appearance) or a constant (id in the constant vocabulary).
struct Term {
  bool is_variable = true;
  int id = -1;
};

// The predicate of a rule atom: either a learnable slot (`#2` in .nlt, or a
// name unknown to the KB in .pl; slot ids are local to the template, numbered
// from 0 in order of first appearance) or a fixed predicate of the KB.
struct PredicateRef {
  bool is_slot = true;
  int id = -1;
};

struct RuleAtom {
  PredicateRef predicate;
  std::vector<Term> args;
};

// A rule template such as `3  #1(X, Y) :- #2(X, Z), #2(Z, Y).`: `copies`
// rules are instantiated from it, each with its own fresh slot parameters.
struct Template {
  RuleAtom head;
  std::vector<RuleAtom> body;
  int copies = 1;
  int num_slots = 0;                        // distinct learnable slots
  int num_variables = 0;                    // distinct variables
  std::vector<std::string> variable_names;  // (num_variables), for printing
  std::vector<std::string> slot_names;      // (num_slots), e.g. "#1" or "q"
  std::string source;                       // "file:line", for messages
  // A rule mined from the facts (mine/rules_file.h): the KB predicate whose
  // embedding each slot starts at, and the rule's confidence on the facts.
  // Empty and -1 for the random slots of .nlt and .pl templates.
  std::vector<int> slot_starts;             // (num_slots) or empty
  double mined_confidence = -1;
};

// Symbols, facts and templates of one KB. Facts are unique (duplicates in
// the input are dropped) and keep their first-seen order.
struct KnowledgeBase {
  Vocabulary predicates;
  Vocabulary constants;
  std::vector<Atom> facts;
  std::vector<Template> templates;

  // Adds a fact; returns false (and adds nothing) if it is already present.
  bool add_fact(const Atom& fact);
  bool contains(const Atom& atom) const { return fact_set_.count(atom) != 0; }

 private:
  std::unordered_set<Atom, AtomHash> fact_set_;
};

// "p(a, b)" for an atom, and "#1(X, Y) :- #2(Y, X)" style for a template
// (without its copy count).
std::string to_string(const KnowledgeBase& kb, const Atom& atom);
std::string to_string(const KnowledgeBase& kb, const Template& t);

}  // namespace ntp
