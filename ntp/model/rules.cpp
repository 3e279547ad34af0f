// ntp/model/rules.cpp: decoding induced rules (see rules.h).
#include "ntp/model/rules.h"

#include "autodiff/ops.h"
#include "ntp/model/rule_attention.h"

#include <algorithm>

namespace ntp {

namespace {

// With rule attention, the KB predicate slot row `row` attends to most, and
// that attention weight. The weight, not the kernel on the mixed embedding,
// is the confidence: it says how much of the slot is that predicate, while a
// 50/50 mix of two nearby relations would still lie close to both.
std::pair<int, double> attended_predicate(const Model& m, const ad::Matrix& weights, int row) {
  ad::Index best = 0;
  const double weight = weights.row(row - m.num_kb_predicates).maxCoeff(&best);
  return {static_cast<int>(best), weight};
}

// The KB predicate nearest to predicate-table row `row`, and its kernel.
std::pair<int, double> nearest_predicate(const Model& m, const ad::Matrix& weights, int row) {
  if (row < m.num_kb_predicates) return {row, 1.0};  // a fixed predicate
  if (weights.size() > 0) return attended_predicate(m, weights, row);
  int best = -1;
  double best_sq = 0;
  for (int p = 0; p < m.num_kb_predicates; ++p) {
    const double sq = (m.predicates.value.row(row) - m.predicates.value.row(p)).squaredNorm();
    if (best < 0 || sq < best_sq) { best = p; best_sq = sq; }
  }
  return {best, ad::rbf_of_squared_distance(best_sq)};
}

}  // namespace

std::vector<InducedRule> induced_rules(const Model& m, double min_confidence) {
  std::vector<InducedRule> out;
  if (m.num_kb_predicates == 0) return out;
  const ad::Matrix weights = has_rule_attention(m) ? rule_attention_weights(m) : ad::Matrix();
  for (std::size_t r = 0; r < m.rules.size(); ++r) {
    const Rule& rule = m.rules[r];
    const Template& tpl = m.kb.templates.at(static_cast<std::size_t>(rule.template_id));
    double confidence = 1.0;
    auto atom_text = [&](const RuleAtom& a) {
      const auto [predicate, k] = nearest_predicate(m, weights, a.predicate.id);
      confidence = std::min(confidence, k);
      std::string s = m.kb.predicates.name(predicate) + "(";
      for (std::size_t i = 0; i < a.args.size(); ++i) {
        const Term& t = a.args[i];
        s += (i ? ", " : "") + (t.is_variable ? tpl.variable_names.at(static_cast<std::size_t>(t.id)) : m.kb.constants.name(t.id));
      }
      return s + ")";
    };
    std::string text = atom_text(rule.head) + " :- ";
    for (std::size_t i = 0; i < rule.body.size(); ++i) text += (i ? ", " : "") + atom_text(rule.body[i]);
    if (confidence >= min_confidence) out.push_back({static_cast<int>(r), confidence, text});
  }
  std::stable_sort(out.begin(), out.end(), [](const InducedRule& a, const InducedRule& b) { return a.confidence > b.confidence; });
  return out;
}

RuleReadings read_rules(const Model& model) {
  RuleReadings r;
  r.text.resize(model.rules.size());
  r.confidence.assign(model.rules.size(), 0.0);
  for (const InducedRule& rule : induced_rules(model, 0.0)) {
    r.text[static_cast<std::size_t>(rule.rule)] = rule.text;
    r.confidence[static_cast<std::size_t>(rule.rule)] = rule.confidence;
  }
  return r;
}

}  // namespace ntp
