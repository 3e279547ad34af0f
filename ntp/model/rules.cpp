// ntp/model/rules.cpp: decoding induced rules (see rules.h).
#include "ntp/model/rules.h"

#include "autodiff/ops.h"
#include "ntp/kb/text.h"
#include "ntp/model/conditional.h"
#include "ntp/model/rule_attention.h"

#include <algorithm>

namespace ntp {

namespace {

// With rule attention, the KB predicate slot row `row` attends to most, and
// that attention weight. The weight, not the kernel on the mixed embedding,
// is the confidence: it says how much of the slot is that predicate, while a
// 50/50 mix of two nearby relations would still lie close to both.
// Only KB predicates are candidates: a slot whose weight went to "no
// relation" reads as its likeliest relation with a low weight.
std::pair<int, double> attended_predicate(const Model& m, const ad::Matrix& weights, int row) {
  ad::Index best = 0;
  const double weight = weights.row(row - m.num_kb_predicates).head(m.num_kb_predicates).maxCoeff(&best);
  return {static_cast<int>(best), weight};
}

// The KB predicate nearest to predicate-table row `row`, and its kernel.
std::pair<int, double> nearest_by_kernel(const Model& m, int row) {
  int best = -1;
  double best_sq = 0;
  for (int p = 0; p < m.num_kb_predicates; ++p) {
    const double sq = (m.predicates.value.row(row) - m.predicates.value.row(p)).squaredNorm();
    if (best < 0 || sq < best_sq) { best = p; best_sq = sq; }
  }
  return {best, ad::rbf_of_squared_distance(best_sq)};
}

// The KB predicate that conditioned row `row` reads as, and its confidence:
// with the attentive reformulator its largest weight for that goal, else
// (linear) the nearest KB predicate and its kernel.
std::pair<int, double> read_conditioned(const Model& m, int row) {
  if (m.conditioning.kind == Reformulator::Linear) return nearest_by_kernel(m, row);
  const Conditioning::Row& c = m.conditioning.rows.at(static_cast<std::size_t>(row - m.num_kb_predicates - m.num_rule_slots));
  ad::Index best = 0;
  const double weight = conditioned_attention(m, c.slot, c.source).row(0).head(m.num_kb_predicates).maxCoeff(&best);
  return {static_cast<int>(best), weight};
}

// The KB predicate predicate-table row `row` reads as, and its confidence.
std::pair<int, double> nearest_predicate(const Model& m, const ad::Matrix& weights, int row) {
  if (row < m.num_kb_predicates) return {row, 1.0};  // a fixed predicate
  if (row >= m.num_kb_predicates + m.num_rule_slots) return read_conditioned(m, row);
  if (weights.size() > 0) return attended_predicate(m, weights, row);
  return nearest_by_kernel(m, row);
}

// The mined rule a template started from, its slots read as their starting predicates.
std::string starting_rule(const Model& m, const Template& tpl) {
  auto text = [&](const RuleAtom& a) {
    const int id = a.predicate.id;
    const int start = a.predicate.is_slot ? tpl.slot_starts.at(static_cast<std::size_t>(id)) : id;
    const std::string name = start >= 0 ? m.kb.predicates.name(start) : tpl.slot_names.at(static_cast<std::size_t>(id));
    return atom_text(name, a.args.size(), [&](std::size_t i) {
      const Term& t = a.args[i];
      return t.is_variable ? tpl.variable_names.at(static_cast<std::size_t>(t.id)) : m.kb.constants.name(t.id);
    });
  };
  std::vector<std::string> body;
  for (const RuleAtom& a : tpl.body) body.push_back(text(a));
  return rule_text(text(tpl.head), body);
}

// Rule r read with KB predicates, as it proves an atom of predicate row
// `goal_row` (which only a conditional rule's reading depends on).
InducedRule reading(const Model& m, const ad::Matrix& weights, int r, int goal_row) {
  const Rule& rule = m.rules.at(static_cast<std::size_t>(r));
  const Template& tpl = m.kb.templates.at(static_cast<std::size_t>(rule.template_id));
  InducedRule out;
  out.rule = r;
  out.confidence = 1.0;
  auto text = [&](int row, const RuleAtom& a) {
    const auto [predicate, k] = nearest_predicate(m, weights, row);
    out.confidence = std::min(out.confidence, k);
    return atom_text(m.kb.predicates.name(predicate), a.args.size(), [&](std::size_t i) {
      const Term& t = a.args[i];
      return t.is_variable ? tpl.variable_names.at(static_cast<std::size_t>(t.id)) : m.kb.constants.name(t.id);
    });
  };
  const std::string head = text(rule.conditional ? goal_row : rule.head.predicate.id, rule.head);
  std::vector<std::string> body;
  for (std::size_t i = 0; i < rule.body.size(); ++i) body.push_back(text(body_row(m, rule, i, goal_row), rule.body[i]));
  out.text = rule_text(head, body);
  if (!tpl.slot_starts.empty()) {
    out.started_from = starting_rule(m, tpl);
    out.mined_confidence = tpl.mined_confidence;
  }
  return out;
}

// The arity of each KB predicate that has facts (0 for the others).
std::vector<std::size_t> fact_arities(const Model& m) {
  std::vector<std::size_t> arity(static_cast<std::size_t>(m.num_kb_predicates), 0);
  for (const Atom& f : m.kb.facts) arity[static_cast<std::size_t>(f.predicate)] = f.args.size();
  return arity;
}

}  // namespace

std::vector<InducedRule> induced_rules(const Model& m, double min_confidence) {
  std::vector<InducedRule> out;
  if (m.num_kb_predicates == 0) return out;
  const ad::Matrix weights = has_rule_attention(m) ? rule_attention_weights(m) : ad::Matrix();
  const std::vector<std::size_t> arity = fact_arities(m);
  auto keep = [&](InducedRule rule) {
    if (rule.confidence >= min_confidence) out.push_back(std::move(rule));
  };
  for (std::size_t r = 0; r < m.rules.size(); ++r) {
    const Rule& rule = m.rules[r];
    if (!rule.conditional) {
      keep(reading(m, weights, static_cast<int>(r), -1));
      continue;
    }
    for (int q = 0; q < m.num_kb_predicates; ++q)  // a conditional rule reads differently for every goal
      if (arity[static_cast<std::size_t>(q)] == rule.head.args.size()) keep(reading(m, weights, static_cast<int>(r), q));
  }
  std::stable_sort(out.begin(), out.end(), [](const InducedRule& a, const InducedRule& b) { return a.confidence > b.confidence; });
  return out;
}

InducedRule read_rule(const Model& m, int rule, int goal_row) {
  const ad::Matrix weights = has_rule_attention(m) ? rule_attention_weights(m) : ad::Matrix();
  return reading(m, weights, rule, goal_row);
}

RuleReadings read_rules(const Model& model) {
  RuleReadings r;
  r.text.resize(model.rules.size());
  r.confidence.assign(model.rules.size(), 0.0);
  for (const InducedRule& rule : induced_rules(model, 0.0)) {
    if (model.rules[static_cast<std::size_t>(rule.rule)].conditional) continue;  // read per goal (read_rule)
    r.text[static_cast<std::size_t>(rule.rule)] = rule.text;
    r.confidence[static_cast<std::size_t>(rule.rule)] = rule.confidence;
  }
  return r;
}

}  // namespace ntp
