// ntp/model/rule_attention.cpp: rule slots as a softmax mix of KB predicates (see rule_attention.h).
#include "ntp/model/rule_attention.h"

#include "autodiff/ops.h"

#include <cmath>
#include <numeric>
#include <random>

namespace ntp {

namespace {

constexpr double kLogitScale = kAttentionLogitScale;

// Where "no relation" lies: every entry kNullDistance / sqrt(d), so about
// kNullDistance from every predicate (embeddings start in [-1, 1]^d, norm
// about sqrt(d / 3)); a slot with weight w on it sits about w kNullDistance
// farther from every relation, and k(20 w) is 0.0001 at w = 0.5.
constexpr double kNullDistance = 20;
// Its logit at the start, c a_null: a weight of about e^-4 / P, so that rules
// start on (near real relations). Starting off instead (+4: weight about
// 1 - P e^-4) gained a little on Countries dev with attention (AUC-PR S3
// 75.0 against 73.8, S2 91.5 against 88.3, seeds 0-2) and more with the
// attentive reformulator (S3 65.0 against 56.4, S2 92.4 against 78.8), but
// with a hard max the rules of a small KB never start proving then (the
// inverse rule of test_rule_attention.cpp is learnt on no seed; the starved
// rules' problem), where starting on learns it on 17 of 20 seeds.
constexpr double kNullStartLogit = -4;

int num_slots(const Model& m) { return m.num_rule_slots; }

std::vector<ad::Index> all_rows(ad::Index n) {
  std::vector<ad::Index> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), ad::Index{0});
  return rows;
}

}  // namespace

bool has_rule_attention(const Model& m) { return m.rule_attention.value.rows() > 0; }

bool has_null_relation(const Model& m) { return m.rule_attention.value.cols() == m.num_kb_predicates + 1; }

void add_rule_attention(Model& m, std::uint64_t seed) {
  const ad::Index p = m.num_kb_predicates;
  m.rule_attention = ad::Parameter("rule_attention", num_slots(m), p + 1);
  std::mt19937_64 rng(seed ^ 0x5bd1e995a77c3f1dull);
  std::uniform_real_distribution<double> u(-1.0 / kLogitScale, 1.0 / kLogitScale);  // scaled: in [-1, 1]
  ad::Matrix& logits = m.rule_attention.value;  // column-major: the KB predicates' columns first
  for (ad::Index i = 0; i < logits.rows() * p; ++i) logits.data()[i] = u(rng);
  logits.col(p).setConstant(kNullStartLogit / kLogitScale);
  refresh_attended_slots(m);
}

namespace {

// (1, d): the "no relation" row.
ad::Matrix null_row(const Model& m) {
  return ad::Matrix::Constant(1, m.dim, kNullDistance / std::sqrt(static_cast<double>(m.dim)));
}

}  // namespace

ad::Matrix attendable_rows(const Model& m) {
  const ad::Index p = m.num_kb_predicates;
  ad::Matrix rows(p + (has_null_relation(m) ? 1 : 0), m.dim);
  rows.topRows(p) = m.predicates.value.topRows(p);
  if (has_null_relation(m)) rows.row(p) = null_row(m);
  return rows;
}

ad::Var attendable_rows(ad::Tape& t, const Model& m, ad::Var relations) {
  if (!has_null_relation(m)) return relations;
  return ad::concat_rows(t, {relations, t.constant(null_row(m))});
}

ad::Matrix scaled_attention_logits(const Model& m) { return kLogitScale * m.rule_attention.value; }

ad::Var scaled_attention_logits(ad::Tape& t, Model& m) {
  return ad::scale(t, ad::gather(t, m.rule_attention, all_rows(num_slots(m))), kLogitScale);  // (S, P)
}

ad::Matrix rule_attention_weights(const Model& m) {
  const ad::Matrix logits = scaled_attention_logits(m);  // (S, P [+ 1])
  ad::Matrix w = (logits.colwise() - logits.rowwise().maxCoeff()).array().exp().matrix();
  return w.array().colwise() / w.rowwise().sum().array();
}

void refresh_attended_slots(Model& m) {
  if (!has_rule_attention(m) || m.num_kb_predicates == 0) return;
  const ad::Index p = m.num_kb_predicates;
  m.predicates.value.middleRows(p, num_slots(m)) = rule_attention_weights(m) * attendable_rows(m);
}

ad::Var attended_predicate_table(ad::Tape& t, Model& m) {
  const ad::Var relations = ad::gather(t, m.predicates, all_rows(m.num_kb_predicates));  // (P, d)
  const ad::Var weights = ad::softmax_rows(t, scaled_attention_logits(t, m));              // (S, P [+ 1])
  return ad::concat_rows(t, {relations, ad::matmul(t, weights, attendable_rows(t, m, relations))});  // (P + S, d)
}

}  // namespace ntp
