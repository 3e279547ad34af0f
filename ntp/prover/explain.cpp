// ntp/prover/explain.cpp: describing a proof path (see explain.h).
//
// The prover records each step's atom after the step's bindings and numbers
// variables internally. To show each goal *as asked*, with the rules'
// variable names, we replay the path: a stack of pending atoms written with
// names mirrors the prover's own stack (a rule's body goes in front, the
// front atom is proven next), and a name -> term map mirrors its bindings.
#include "ntp/prover/explain.h"

#include <algorithm>
#include <map>
#include <set>

namespace ntp {

namespace {

// A pending atom with its terms written as names (constants or variables).
struct NamedAtom {
  int predicate_row = 0;
  std::vector<std::string> terms;
};

// The replayed substitution: variable name -> term (a constant or another variable).
class Bindings {
 public:
  void declare(const std::string& variable) { variables_.insert(variable); }
  bool is_variable(const std::string& term) const { return variables_.count(term) != 0; }
  // Follows bindings to a constant or an unbound variable.
  std::string deref(std::string term) const {
    for (auto it = bound_.find(term); it != bound_.end(); it = bound_.find(term)) term = it->second;
    return term;
  }
  // As the prover's unify_terms: binds x if it is a variable, else y; two
  // constants bind nothing (their kernel is one of the step's matches).
  void unify(const std::string& x_term, const std::string& y_term, std::vector<Binding>& made) {
    const std::string x = deref(x_term), y = deref(y_term);
    if (is_variable(x)) {
      if (x != y) bind(x, y, made);
    } else if (is_variable(y)) {
      bind(y, x, made);
    }
  }

 private:
  void bind(const std::string& variable, const std::string& value, std::vector<Binding>& made) {
    bound_[variable] = value;
    made.push_back({variable, value});
  }
  std::set<std::string> variables_;
  std::map<std::string, std::string> bound_;
};

std::string atom_text(const Model& model, const NamedAtom& a, const Bindings& b) {
  std::string s = model.predicate_row_name(a.predicate_row) + "(";
  for (std::size_t i = 0; i < a.terms.size(); ++i) s += (i ? ", " : "") + b.deref(a.terms[i]);
  return s + ")";
}

std::string symbol_name(const Model& model, Table table, int row) {
  return table == Table::Predicate ? model.predicate_row_name(row) : model.kb.constants.name(row);
}

}  // namespace

Proof describe_path(const Model& model, const ProofPath& path, const Atom& goal,
                    const std::vector<std::string>& goal_variables, const RuleReadings& readings) {
  Bindings bindings;
  NamedAtom first{goal.predicate, {}};
  for (std::size_t i = 0; i < goal.args.size(); ++i) {
    if (goal.args[i] >= 0) {
      first.terms.push_back(model.kb.constants.name(goal.args[i]));
      continue;
    }
    const std::string name = i < goal_variables.size() && !goal_variables[i].empty() ? goal_variables[i] : "_" + std::to_string(i);
    bindings.declare(name);
    first.terms.push_back(name);
  }
  std::vector<NamedAtom> pending{first};
  int rule_applications = 0;

  Proof proof;
  proof.score = 1;
  for (const ProofStep& s : path.steps) {
    if (pending.empty()) break;  // cannot happen for a path of this goal
    const NamedAtom asked = pending.front();
    pending.erase(pending.begin());
    Step step;
    step.depth = s.depth;
    step.goal = atom_text(model, asked, bindings);
    step.by_rule = s.by_rule;
    step.id = s.id;
    for (const Comparison& c : s.comparisons) {
      const double k = kernel(model, c);
      step.matches.push_back({symbol_name(model, c.table, c.a), symbol_name(model, c.table, c.b), k});
      step.score = std::min(step.score, k);
    }
    if (s.by_rule) {
      const Rule& rule = model.rules.at(static_cast<std::size_t>(s.id));
      const Template& tpl = model.kb.templates.at(static_cast<std::size_t>(rule.template_id));
      step.used = to_string(model, rule);
      step.reading = readings.text.at(static_cast<std::size_t>(s.id));
      step.confidence = readings.confidence.at(static_cast<std::size_t>(s.id));
      // Each application gets its own variables (the prover renames rules
      // apart): X, Y, Z the first time, X_2, Y_2, Z_2 the second...
      ++rule_applications;
      const std::string suffix = rule_applications == 1 ? "" : "_" + std::to_string(rule_applications);
      auto term = [&](const Term& t) {
        if (!t.is_variable) return model.kb.constants.name(t.id);
        const std::string name = tpl.variable_names.at(static_cast<std::size_t>(t.id)) + suffix;
        bindings.declare(name);
        return name;
      };
      for (std::size_t i = 0; i < rule.head.args.size() && i < asked.terms.size(); ++i)
        bindings.unify(term(rule.head.args[i]), asked.terms[i], step.substitution);
      std::vector<NamedAtom> body;
      for (const RuleAtom& b : rule.body) {
        NamedAtom a{b.predicate.id, {}};
        for (const Term& t : b.args) a.terms.push_back(term(t));
        body.push_back(std::move(a));
      }
      pending.insert(pending.begin(), body.begin(), body.end());
    } else {
      const Atom& fact = model.kb.facts.at(static_cast<std::size_t>(s.id));
      step.used = to_string(model.kb, fact);
      for (std::size_t i = 0; i < fact.args.size() && i < asked.terms.size(); ++i)
        bindings.unify(asked.terms[i], model.kb.constants.name(fact.args[i]), step.substitution);
    }
    proof.score = std::min(proof.score, step.score);
    proof.steps.push_back(std::move(step));
  }
  return proof;
}

}  // namespace ntp
