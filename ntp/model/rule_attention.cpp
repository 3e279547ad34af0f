// ntp/model/rule_attention.cpp: rule slots as a softmax mix of KB predicates (see rule_attention.h).
#include "ntp/model/rule_attention.h"

#include "autodiff/ops.h"

#include <numeric>
#include <random>

namespace ntp {

namespace {

constexpr double kLogitScale = kAttentionLogitScale;

int num_slots(const Model& m) { return m.num_rule_slots; }

std::vector<ad::Index> all_rows(ad::Index n) {
  std::vector<ad::Index> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), ad::Index{0});
  return rows;
}

}  // namespace

bool has_rule_attention(const Model& m) { return m.rule_attention.value.rows() > 0; }

void add_rule_attention(Model& m, std::uint64_t seed) {
  m.rule_attention = ad::Parameter("rule_attention", num_slots(m), m.num_kb_predicates);
  std::mt19937_64 rng(seed ^ 0x5bd1e995a77c3f1dull);
  std::uniform_real_distribution<double> u(-1.0 / kLogitScale, 1.0 / kLogitScale);  // scaled: in [-1, 1]
  for (ad::Index i = 0; i < m.rule_attention.value.size(); ++i) m.rule_attention.value.data()[i] = u(rng);
  refresh_attended_slots(m);
}

ad::Matrix scaled_attention_logits(const Model& m) { return kLogitScale * m.rule_attention.value; }

ad::Var scaled_attention_logits(ad::Tape& t, Model& m) {
  return ad::scale(t, ad::gather(t, m.rule_attention, all_rows(num_slots(m))), kLogitScale);  // (S, P)
}

ad::Matrix rule_attention_weights(const Model& m) {
  const ad::Matrix logits = scaled_attention_logits(m);  // (S, P)
  ad::Matrix w = (logits.colwise() - logits.rowwise().maxCoeff()).array().exp().matrix();
  return w.array().colwise() / w.rowwise().sum().array();
}

void refresh_attended_slots(Model& m) {
  if (!has_rule_attention(m) || m.num_kb_predicates == 0) return;
  const ad::Index p = m.num_kb_predicates;
  m.predicates.value.middleRows(p, num_slots(m)) = rule_attention_weights(m) * m.predicates.value.topRows(p);
}

ad::Var attended_predicate_table(ad::Tape& t, Model& m) {
  const ad::Var relations = ad::gather(t, m.predicates, all_rows(m.num_kb_predicates));            // (P, d)
  const ad::Var weights = ad::softmax_rows(t, scaled_attention_logits(t, m));  // (S, P)
  return ad::concat_rows(t, {relations, ad::matmul(t, weights, relations)});                     // (P + S, d)
}

}  // namespace ntp
