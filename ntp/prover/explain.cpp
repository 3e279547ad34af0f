// ntp/prover/explain.cpp: describing a proof path (see explain.h).
//
// The prover records each step's atom after the step's bindings and numbers
// variables internally. To show each goal *as asked*, with the rules'
// variable names, we replay the path: a stack of pending atoms written with
// names mirrors the prover's own stack (a rule's body goes in front, the
// front atom is proven next), and a name -> term map mirrors its bindings.
#include "ntp/prover/explain.h"

#include "ntp/kb/text.h"

#include "ntp/model/conditional.h"

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
  return ntp::atom_text(model.predicate_row_name(a.predicate_row), a.terms.size(),
                        [&](std::size_t i) { return b.deref(a.terms[i]); });
}

std::string symbol_name(const Model& model, Table table, int row) {
  return table == Table::Predicate ? model.predicate_row_name(row) : model.kb.constants.name(row);
}

// The replay itself: the pending atoms with names, the bindings, and how
// many rules were applied so far (each application names its variables apart).
class Replay {
 public:
  Replay(const Model& model, const Atom& goal, const std::vector<std::string>& goal_variables) : model_(model) {
    NamedAtom first{goal.predicate, {}};
    for (std::size_t i = 0; i < goal.args.size(); ++i) {
      if (goal.args[i] >= 0) {
        first.terms.push_back(model.kb.constants.name(goal.args[i]));
        continue;
      }
      const bool named = i < goal_variables.size() && !goal_variables[i].empty();
      const std::string name = named ? goal_variables[i] : "_" + std::to_string(i);
      bindings_.declare(name);
      first.terms.push_back(name);
    }
    pending_.push_back(std::move(first));
  }

  bool done() const { return pending_.empty(); }

  // Step s proves the front pending atom: the step as shown, with its kernels.
  Step next(const ProofStep& s, const RuleReadings& readings) {
    const NamedAtom asked = pending_.front();
    pending_.erase(pending_.begin());
    Step step;
    step.depth = s.depth;
    step.goal = atom_text(model_, asked, bindings_);
    step.by_rule = s.by_rule;
    step.id = s.id;
    for (const Comparison& c : s.comparisons) {
      const double k = kernel(model_, c);
      step.matches.push_back({symbol_name(model_, c.table, c.a), symbol_name(model_, c.table, c.b), k});
      step.score = std::min(step.score, k);
    }
    if (s.by_rule && model_.rules.at(static_cast<std::size_t>(s.id)).conditional) {
      const InducedRule read = read_rule(model_, s.id, asked.predicate_row);  // its reading depends on the goal
      step.reading = read.text;
      step.confidence = read.confidence;
      apply_rule(model_.rules.at(static_cast<std::size_t>(s.id)), asked, step);
    } else if (s.by_rule) {
      step.reading = readings.text.at(static_cast<std::size_t>(s.id));
      step.confidence = readings.confidence.at(static_cast<std::size_t>(s.id));
      apply_rule(model_.rules.at(static_cast<std::size_t>(s.id)), asked, step);
    } else {
      apply_fact(model_.kb.facts.at(static_cast<std::size_t>(s.id)), asked, step);
    }
    return step;
  }

 private:
  // As the prover's apply_rule: head unified with the atom asked, body in front.
  void apply_rule(const Rule& rule, const NamedAtom& asked, Step& step) {
    const Template& tpl = model_.kb.templates.at(static_cast<std::size_t>(rule.template_id));
    step.used = to_string(model_, rule, asked.predicate_row);
    // X, Y, Z the first time, X_2, Y_2, Z_2 the second...
    ++rule_applications_;
    const std::string suffix = rule_applications_ == 1 ? "" : "_" + std::to_string(rule_applications_);
    auto term = [&](const Term& t) {
      if (!t.is_variable) return model_.kb.constants.name(t.id);
      const std::string name = tpl.variable_names.at(static_cast<std::size_t>(t.id)) + suffix;
      bindings_.declare(name);
      return name;
    };
    for (std::size_t i = 0; i < rule.head.args.size() && i < asked.terms.size(); ++i)
      bindings_.unify(term(rule.head.args[i]), asked.terms[i], step.substitution);
    std::vector<NamedAtom> body;
    for (std::size_t i = 0; i < rule.body.size(); ++i) {
      NamedAtom a{body_row(model_, rule, i, asked.predicate_row), {}};
      for (const Term& t : rule.body[i].args) a.terms.push_back(term(t));
      body.push_back(std::move(a));
    }
    pending_.insert(pending_.begin(), body.begin(), body.end());
  }

  // As the prover's apply_fact: the atom asked unified with the fact.
  void apply_fact(const Atom& fact, const NamedAtom& asked, Step& step) {
    step.used = to_string(model_.kb, fact);
    for (std::size_t i = 0; i < fact.args.size() && i < asked.terms.size(); ++i)
      bindings_.unify(asked.terms[i], model_.kb.constants.name(fact.args[i]), step.substitution);
  }

  const Model& model_;
  Bindings bindings_;
  std::vector<NamedAtom> pending_;
  int rule_applications_ = 0;
};

}  // namespace

Proof describe_path(const Model& model, const ProofPath& path, const Atom& goal,
                    const std::vector<std::string>& goal_variables, const RuleReadings& readings) {
  Replay replay(model, goal, goal_variables);
  Proof proof;
  proof.score = 1;
  for (const ProofStep& s : path.steps) {
    if (replay.done()) break;  // cannot happen for a path of this goal
    Step step = replay.next(s, readings);
    proof.score = std::min(proof.score, step.score);
    proof.steps.push_back(std::move(step));
  }
  return proof;
}

}  // namespace ntp
