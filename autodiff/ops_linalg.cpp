// autodiff/ops_linalg.cpp: matrix product and row-wise softmax, for the
// parts of a model that mix embedding dimensions (e.g. attention over rules).
#include "autodiff/ops_internal.h"

namespace ad {

// Backward rules, each defined right after its forward op.
static void matmul_backward(Tape& t, int id);
static void matmul_transposed_backward(Tape& t, int id);
static void softmax_rows_backward(Tape& t, int id);

// ---- matmul: y = a b;  da += g bᵀ, db += aᵀ g -----------------------------------

Var matmul(Tape& t, Var a, Var b) {
  if (t.value(a).cols() != t.value(b).rows())
    detail::throw_shapes("matmul", t.value(a), t.value(b), "do not chain (inner sizes differ)");
  Node& n = t.push("matmul", {a.id, b.id}, t.value(a).rows(), t.value(b).cols(),
                   matmul_backward);
  n.value.noalias() = t.value(a) * t.value(b);
  return t.last();
}

static void matmul_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  Node& b = t.node(n.inputs[1]);
  if (a.needs_grad) a.grad_for_all().noalias() += n.grad * b.value.transpose();
  if (b.needs_grad) b.grad_for_all().noalias() += a.value.transpose() * n.grad;
}

// ---- matmul_transposed: y = a bᵀ;  da += g b, db += gᵀ a ----------------------

Var matmul_transposed(Tape& t, Var a, Var b) {
  if (t.value(a).cols() != t.value(b).cols())
    detail::throw_shapes("matmul_transposed", t.value(a), t.value(b), "differ in columns");
  Node& n = t.push("matmul_transposed", {a.id, b.id}, t.value(a).rows(), t.value(b).rows(),
                   matmul_transposed_backward);
  n.value.noalias() = t.value(a) * t.value(b).transpose();
  return t.last();
}

static void matmul_transposed_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  Node& b = t.node(n.inputs[1]);
  if (a.needs_grad) a.grad_for_all().noalias() += n.grad * b.value;
  if (b.needs_grad) b.grad_for_all().noalias() += n.grad.transpose() * a.value;
}

// ---- softmax_rows: y[i] = e^(x[i] - max) / Σ e^(x[i] - max) ---------------------
// dx[i] += y[i] ⊙ (g[i] - <g[i], y[i]>).

Var softmax_rows(Tape& t, Var x) {
  if (t.value(x).cols() == 0)
    throw ShapeError("softmax_rows: shape " + shape_of(t.value(x)) + " has no columns");
  Node& n = t.push("softmax_rows", {x.id}, t.value(x).rows(), t.value(x).cols(),
                   softmax_rows_backward);
  const Matrix& xv = t.value(x);
  for (Index i = 0; i < xv.rows(); ++i) detail::softmax_row(xv, i, n.value);
  return t.last();
}

static void softmax_rows_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row([&](Index i) {
    const Scalar dot = n.grad.row(i).dot(n.value.row(i));
    x.grad_for_row(i).array() += n.value.row(i).array() * (n.grad.row(i).array() - dot);
  });
}

}  // namespace ad
