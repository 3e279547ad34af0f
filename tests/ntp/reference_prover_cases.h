// tests/ntp/reference_prover_cases.h: random small KBs, rule templates and
// goals for checking ntp::Prover against the reference prover, drawn from any
// source of choices: a seeded generator (the doctest) or the fuzzer's bytes.
//
// A case is text in the library's own formats (.nl facts, .nlt templates),
// read by training_data_from_text and turned into a model by make_model, so
// the KB goes through the same parsers as real data. Sizes are kept small
// enough that enumerating every proof stays cheap: the number of proofs
// grows as facts^(body atoms) per rule application, and again with depth.
#pragma once

#include "ntp/prover/prover.h"
#include "ntp/train/training_data.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace reference {

// Rule templates the cases draw from: the shapes of the benchmarks' .nlt
// files, a slot shared by two atoms, repeated variables (the second
// occurrence compares what the first bound) and, for KBs with a unary
// predicate, rules across arities.
inline const std::vector<std::string>& binary_templates() {
  static const std::vector<std::string> forms{
      "#1(X, Y) :- #2(X, Y).",           "#1(X, Y) :- #2(Y, X).",
      "#1(X, Y) :- #2(X, Z), #3(Z, Y).", "#1(X, Y) :- #2(X, Z), #2(Z, Y).",
      "#1(X, Y) :- #1(Y, X).",           "#1(X, Y) :- #2(X, X), #3(X, Y).",
      "#1(X, X) :- #2(X, Y).",
  };
  return forms;
}
inline const std::vector<std::string>& unary_templates() {
  static const std::vector<std::string> forms{"#1(X) :- #2(X, Y).", "#1(X, Y) :- #2(X), #3(X, Y)."};
  return forms;
}

// How large a case may be; each size is drawn uniformly in [min, max].
struct CaseSizes {
  int min_predicates = 3, max_predicates = 8;
  int min_constants = 4, max_constants = 10;
  int min_facts = 5, max_facts = 30;
  int min_templates = 1, max_templates = 3;
  int max_copies = 2;   // copies of each template
  int max_dim = 4;
};

// A case in text: facts (.nl) and templates (.nlt).
struct Case {
  std::string facts, templates;
};

// `draw(n)` returns a choice in [0, n).
template <class Draw>
int draw_between(Draw& draw, int min, int max) {
  return min + draw(max - min + 1);
}

// Facts over predicates p0.. (binary) and, in one case in five, u (unary);
// then templates, some with a fixed head predicate instead of the slot #1.
template <class Draw>
Case draw_case(Draw& draw, const CaseSizes& sizes) {
  Case c;
  const int predicates = draw_between(draw, sizes.min_predicates, sizes.max_predicates);
  const int constants = draw_between(draw, sizes.min_constants, sizes.max_constants);
  const int facts = draw_between(draw, sizes.min_facts, sizes.max_facts);
  const bool unary = draw(5) == 0;
  auto constant = [&]() { return "c" + std::to_string(draw(constants)); };
  for (int f = 0; f < facts; ++f) {
    if (unary && draw(4) == 0) {
      c.facts += "u(" + constant() + ").\n";
      continue;
    }
    const std::string subject = constant();
    c.facts += "p" + std::to_string(draw(predicates)) + "(" + subject + ", " + constant() + ").\n";
  }
  c.facts += "p0(" + constant() + ", " + constant() + ").\n";  // fixed heads may name p0
  const int templates = draw_between(draw, sizes.min_templates, sizes.max_templates);
  for (int t = 0; t < templates; ++t) {
    const bool across = unary && c.facts.find("u(") != std::string::npos && draw(3) == 0;
    const std::vector<std::string>& forms = across ? unary_templates() : binary_templates();
    std::string form = forms[static_cast<std::size_t>(draw(static_cast<int>(forms.size())))];
    if (!across && form.rfind("#1(X, Y)", 0) == 0 && form.find("#1", 2) == std::string::npos && draw(4) == 0)
      form.replace(0, 2, "p0");  // a rule for a KB predicate, whose head is not learned
    c.templates += std::to_string(draw_between(draw, 1, sizes.max_copies)) + " " + form + "\n";
  }
  return c;
}

// The most proofs one goal can have at `depth`, for choosing how many goals
// a case can afford: every fact unifies softly with every goal of its
// arity, so with F facts, n(0) = F and n(d) = F + sum over rules of the
// product over body atoms of n(d - 1) (counting all facts, whatever their
// arity, makes it an upper bound).
inline double proof_bound(const ntp::Model& model, int depth) {
  const double facts = static_cast<double>(model.kb.facts.size());
  double n = facts;
  for (int d = 1; d <= depth; ++d) {
    double next = facts;
    for (const ntp::Rule& r : model.rules) next += std::pow(n, static_cast<double>(r.body.size()));
    n = next;
  }
  return n;
}

// How many goals fit in a budget of `budget` proofs in all, at most
// `max_goals`; 0 when the case is too large for even one.
inline int affordable_goals(const ntp::Model& model, int depth, double budget, int max_goals) {
  return static_cast<int>(std::min(static_cast<double>(max_goals), std::floor(budget / proof_bound(model, depth))));
}

inline ntp::Model case_model(const Case& c, int dim, std::uint64_t seed) {
  return ntp::make_model(ntp::training_data_from_text(c.facts, c.templates).kb, dim, ntp::ProverConfig{}, seed);
}

// Goals as training and evaluation ask them: every fact (half of them with
// the fact itself masked, as training does), corruptions of facts, and a
// few queries with a variable.
template <class Draw>
std::vector<ntp::Goal> draw_goals(Draw& draw, const ntp::Model& model, int max_goals) {
  const std::vector<ntp::Atom>& facts = model.kb.facts;
  const int constants = model.kb.constants.size();
  std::vector<ntp::Goal> goals;
  for (std::size_t f = 0; f < facts.size() && static_cast<int>(goals.size()) < max_goals / 2; ++f) {
    ntp::Goal g{facts[f], draw(2) == 0 ? static_cast<int>(f) : -1};
    if (draw(8) == 0) g.masked.ids.push_back(draw(static_cast<int>(facts.size())));  // a second masked fact
    goals.push_back(g);
  }
  while (static_cast<int>(goals.size()) < max_goals) {
    ntp::Atom a = facts[static_cast<std::size_t>(draw(static_cast<int>(facts.size())))];
    const std::size_t position = static_cast<std::size_t>(draw(static_cast<int>(a.args.size())));
    a.args[position] = draw(6) == 0 ? -1 : draw(constants);
    if (draw(4) == 0) a.predicate = draw(model.kb.predicates.size());  // of any arity: compared all the same
    goals.push_back({a, -1});
  }
  return goals;
}

}  // namespace reference
