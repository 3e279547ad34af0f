// ntp/mine/mined_rule.cpp: AMIE's measures and the text of a mined rule (see mined_rule.h).
#include "ntp/mine/mined_rule.h"

#include "ntp/kb/text.h"
#include "ntp/mine/relation_graph.h"

#include <algorithm>

namespace ntp {

void set_measures(MinedRule& rule, long long head_facts) {
  const double support = static_cast<double>(rule.support);
  // A sampled count can fall below the support it must contain.
  rule.body_pairs = std::max(rule.body_pairs, support);
  rule.pca_pairs = std::min(std::max(rule.pca_pairs, support), rule.body_pairs);
  rule.head_coverage = head_facts > 0 ? support / static_cast<double>(head_facts) : 0;
  const double prior = has_constant(rule) ? kConstantRulePrior : 0;
  rule.confidence = rule.body_pairs > 0 ? support / (rule.body_pairs + prior) : 0;
  rule.pca_confidence = rule.pca_pairs > 0 ? support / (rule.pca_pairs + prior) : 0;
}

namespace {

// "h(X, c) :- r(X, d)": V is X when the constant is the head's second argument, else Y.
std::string constant_rule_text(const KnowledgeBase& kb, const MinedRule& rule) {
  const std::string v = rule.constant_arg == 1 ? "X" : "Y", c = kb.constants.name(rule.head_constant);
  const std::string end = rule.body_constant >= 0 ? kb.constants.name(rule.body_constant) : "Z";
  auto atom = [&](int predicate, const std::string& a, const std::string& b) {
    return atom_text(kb.predicates.name(predicate), 2, [&](std::size_t i) { return i == 0 ? a : b; });
  };
  const std::string head = rule.constant_arg == 1 ? atom(rule.head, v, c) : atom(rule.head, c, v);
  const int step = rule.body.front();
  const std::string body = is_backward(step) ? atom(step_relation(step), end, v) : atom(step_relation(step), v, end);
  return ntp::rule_text(head, {body});
}

}  // namespace

std::string rule_text(const KnowledgeBase& kb, const MinedRule& rule) {
  if (has_constant(rule)) return constant_rule_text(kb, rule);
  // Variables along the path: X, then the middle ones, then Y.
  std::vector<std::string> along{"X"};
  const std::size_t middle = rule.body.size() - 1;
  for (std::size_t i = 1; i <= middle; ++i) along.push_back(middle == 1 ? "Z" : "Z" + std::to_string(i));
  along.push_back("Y");
  auto atom = [&](int predicate, const std::string& a, const std::string& b) {
    return atom_text(kb.predicates.name(predicate), 2, [&](std::size_t i) { return i == 0 ? a : b; });
  };
  std::vector<std::string> body;
  for (std::size_t i = 0; i < rule.body.size(); ++i) {
    const int step = rule.body[i];
    const std::string& from = along[i];
    const std::string& to = along[i + 1];
    body.push_back(is_backward(step) ? atom(step_relation(step), to, from) : atom(step_relation(step), from, to));
  }
  return ntp::rule_text(atom(rule.head, "X", "Y"), body);
}

}  // namespace ntp
