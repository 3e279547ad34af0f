// autodiff/ops_loss.cpp: the losses: log_sigmoid, the mean binary
// cross-entropy NTP trains with and the softmax cross-entropies, all written
// to stay finite at extreme inputs.
#include "autodiff/ops_internal.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ad {

// Backward rules, each defined right after its forward op.
static void log_sigmoid_backward(Tape& t, int id);
static void binary_cross_entropy_backward(Tape& t, int id);
static void softmax_cross_entropy_backward(Tape& t, int id);
static void group_cross_entropy_backward(Tape& t, int id);

// ---- log_sigmoid: y = log σ(x) = -log(1 + e^-x);  dx += g σ(-x) -----------------
// Evaluated as min(x, 0) - log1p(e^-|x|) so that e^ never overflows.

Var log_sigmoid(Tape& t, Var x) {
  Node& n = t.push("log_sigmoid", {x.id}, t.value(x).rows(), t.value(x).cols(),
                   log_sigmoid_backward);
  const Matrix& xv = t.value(x);
  for (Index e = 0; e < xv.size(); ++e) {
    const Scalar v = xv.data()[e];
    n.value.data()[e] = std::min(v, Scalar(0)) - std::log1p(std::exp(-std::abs(v)));
  }
  return t.last();
}

static void log_sigmoid_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row([&](Index r) {
    auto gx = x.grad_for_row(r);
    for (Index c = 0; c < n.value.cols(); ++c) {
      const Scalar v = x.value(r, c);
      const Scalar z = std::exp(-std::abs(v));  // σ(-v) = z/(1+z) for v >= 0, 1/(1+z) else
      gx(c) += n.grad(r, c) * (v >= 0 ? z / (1 + z) : 1 / (1 + z));
    }
  });
}

// ---- binary_cross_entropy: y = -1/n Σ [l log p + (1 - l) log(1 - p)]; aux = labels ----
// dp[i] += g (-l / p + (1 - l) / (1 - p)) / n, each term dropped where its
// argument was clipped to [kMinProbability, 1].

static bool in_range(Scalar q) { return q >= kMinProbability && q <= 1; }
static Scalar clip_probability(Scalar q) {
  return q < kMinProbability ? kMinProbability : (q > 1 ? 1 : q);
}

Var binary_cross_entropy(Tape& t, Var p, const std::vector<Scalar>& labels) {
  const Matrix& pv = t.value(p);
  const Index count = static_cast<Index>(labels.size());
  if (pv.cols() != 1 || pv.rows() != count)
    throw ShapeError("binary_cross_entropy: shapes " + shape_of(pv) + " (probabilities) and (" +
                     std::to_string(count) + ", 1) (labels) differ");
  if (count == 0) throw ShapeError("binary_cross_entropy: shape (0, 1) has no entries");
  Node& n = t.push("binary_cross_entropy", {p.id}, 1, 1, binary_cross_entropy_backward);
  n.aux = Eigen::Map<const Matrix>(labels.data(), count, 1);
  const Matrix& q = t.value(p);
  Scalar total = 0;
  for (Index i = 0; i < count; ++i) {
    const Scalar label = labels[static_cast<std::size_t>(i)];
    total += label * std::log(clip_probability(q(i, 0))) +
             (1 - label) * std::log(clip_probability(1 - q(i, 0)));
  }
  n.value(0, 0) = -total / static_cast<Scalar>(count);
  return t.last();
}

static void binary_cross_entropy_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& p = t.node(n.inputs[0]);
  if (!p.needs_grad) return;
  const Index count = p.value.rows();
  const Scalar g = n.grad(0, 0) / static_cast<Scalar>(count);
  Matrix& gp = p.grad_for_all();
  for (Index i = 0; i < count; ++i) {
    const Scalar q = p.value(i, 0), label = n.aux(i, 0);
    Scalar d = 0;
    if (in_range(q)) d -= label / q;
    if (in_range(1 - q)) d += (1 - label) / (1 - q);
    gp(i, 0) += g * d;
  }
}

// ---- softmax_cross_entropy: y = -1/n Σ_i [x_i[t_i] - log Σ_j e^x_ij] ------------
// dx_i += g (softmax(x_i) - onehot(t_i)) / n. aux keeps the softmaxes (n, m),
// index the targets.

Var softmax_cross_entropy(Tape& t, Var x, const std::vector<Index>& targets) {
  const Matrix& xv = t.value(x);
  const Index count = static_cast<Index>(targets.size());
  if (xv.rows() != count || xv.cols() == 0)
    throw ShapeError("softmax_cross_entropy: shape " + shape_of(xv) + " (logits) does not fit " +
                     std::to_string(count) + " targets (one per row, at least one column)");
  if (count == 0) throw ShapeError("softmax_cross_entropy: shape (0, m) has no rows");
  for (Index target : targets)
    if (target < 0 || target >= xv.cols())
      throw ShapeError("softmax_cross_entropy: target " + std::to_string(target) + " is outside the " +
                       std::to_string(xv.cols()) + " columns of " + shape_of(xv));
  Node& n = t.push("softmax_cross_entropy", {x.id}, 1, 1, softmax_cross_entropy_backward);
  n.index = targets;
  n.aux.resize(count, xv.cols());
  Scalar total = 0;
  for (Index i = 0; i < count; ++i)
    total += xv(i, targets[static_cast<std::size_t>(i)]) - detail::softmax_row(xv, i, n.aux);
  n.value(0, 0) = -total / static_cast<Scalar>(count);
  return t.last();
}

static void softmax_cross_entropy_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  const Index count = x.value.rows();
  const Scalar g = n.grad(0, 0) / static_cast<Scalar>(count);
  Matrix& gx = x.grad_for_all();
  gx.noalias() += g * n.aux;
  for (Index i = 0; i < count; ++i) gx(i, n.index[static_cast<std::size_t>(i)]) -= g;
}

// ---- group_cross_entropy: y = -1/G Σ_g [log p_g0 - log S_g],  S_g = Σ_j p_gj -------
// dp_g0 += c (1/S_g - 1/p_g0),  dp_gj += c / S_g (j > 0),  c = g / G; each
// term dropped where its p was clipped. aux keeps each group's S_g (G, 1).

Var group_cross_entropy(Tape& t, Var p, Index group) {
  const Matrix& pv = t.value(p);
  if (group < 1 || pv.cols() != 1 || pv.rows() == 0 || pv.rows() % group != 0)
    throw ShapeError("group_cross_entropy: shape " + shape_of(pv) + " is not a column of whole groups of " +
                     std::to_string(group) + " rows");
  const Index groups = pv.rows() / group;
  Node& n = t.push("group_cross_entropy", {p.id}, 1, 1, group_cross_entropy_backward);
  n.aux.resize(groups, 1);
  const Matrix& q = t.value(p);
  Scalar total = 0;
  for (Index g = 0; g < groups; ++g) {
    Scalar sum = 0;
    for (Index j = 0; j < group; ++j) sum += clip_probability(q(g * group + j, 0));
    n.aux(g, 0) = sum;
    total += std::log(clip_probability(q(g * group, 0))) - std::log(sum);
  }
  n.value(0, 0) = -total / static_cast<Scalar>(groups);
  return t.last();
}

static void group_cross_entropy_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& p = t.node(n.inputs[0]);
  if (!p.needs_grad) return;
  const Index groups = n.aux.rows(), group = p.value.rows() / groups;
  const Scalar c = n.grad(0, 0) / static_cast<Scalar>(groups);
  Matrix& gp = p.grad_for_all();
  for (Index g = 0; g < groups; ++g)
    for (Index j = 0; j < group; ++j) {
      const Index i = g * group + j;
      const Scalar q = p.value(i, 0);
      if (!in_range(q)) continue;
      gp(i, 0) += c * (1 / n.aux(g, 0) - (j == 0 ? 1 / q : 0));
    }
}

}  // namespace ad
