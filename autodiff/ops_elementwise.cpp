// autodiff/ops_elementwise.cpp: element-wise ops on same-shape inputs: add,
// sub, mul, scale, exp, min (of several) and max (of two). No broadcasting:
// callers repeat rows with gather_rows first. Backward rules work row by row
// over the rows of the output gradient that may be non-zero.
#include "autodiff/ops_internal.h"

#include <string>

namespace ad {

using detail::check_same_shape;

// Backward rules, each defined right after its forward op.
static void add_backward(Tape& t, int id);
static void sub_backward(Tape& t, int id);
static void mul_backward(Tape& t, int id);
static void scale_backward(Tape& t, int id);
static void exp_backward(Tape& t, int id);
static void min_backward(Tape& t, int id);
static void max_backward(Tape& t, int id);

// ---- add: y = a + b;  da += g, db += g ----------------------------------------

Var add(Tape& t, Var a, Var b) {
  check_same_shape("add", t.value(a), t.value(b));
  Node& n = t.push("add", {a.id, b.id}, t.value(a).rows(), t.value(a).cols(), add_backward);
  n.value = t.value(a) + t.value(b);
  return t.last();
}

static void add_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  Node& b = t.node(n.inputs[1]);
  n.for_each_grad_row([&](Index r) {
    if (a.needs_grad) a.grad_for_row(r) += n.grad.row(r);
    if (b.needs_grad) b.grad_for_row(r) += n.grad.row(r);
  });
}

// ---- sub: y = a - b;  da += g, db -= g ----------------------------------------

Var sub(Tape& t, Var a, Var b) {
  check_same_shape("sub", t.value(a), t.value(b));
  Node& n = t.push("sub", {a.id, b.id}, t.value(a).rows(), t.value(a).cols(), sub_backward);
  n.value = t.value(a) - t.value(b);
  return t.last();
}

static void sub_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  Node& b = t.node(n.inputs[1]);
  n.for_each_grad_row([&](Index r) {
    if (a.needs_grad) a.grad_for_row(r) += n.grad.row(r);
    if (b.needs_grad) b.grad_for_row(r) -= n.grad.row(r);
  });
}

// ---- mul: y = a ⊙ b;  da += g ⊙ b, db += g ⊙ a --------------------------------

Var mul(Tape& t, Var a, Var b) {
  check_same_shape("mul", t.value(a), t.value(b));
  Node& n = t.push("mul", {a.id, b.id}, t.value(a).rows(), t.value(a).cols(), mul_backward);
  n.value = t.value(a).cwiseProduct(t.value(b));
  return t.last();
}

static void mul_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  Node& b = t.node(n.inputs[1]);
  n.for_each_grad_row([&](Index r) {
    if (a.needs_grad) a.grad_for_row(r) += n.grad.row(r).cwiseProduct(b.value.row(r));
    if (b.needs_grad) b.grad_for_row(r) += n.grad.row(r).cwiseProduct(a.value.row(r));
  });
}

// ---- scale: y = c a;  da += c g; constant = c --------------------------------

Var scale(Tape& t, Var a, Scalar c) {
  Node& n = t.push("scale", {a.id}, t.value(a).rows(), t.value(a).cols(), scale_backward);
  n.constant = c;
  n.value = c * t.value(a);
  return t.last();
}

static void scale_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  if (!a.needs_grad) return;
  n.for_each_grad_row([&](Index r) { a.grad_for_row(r) += n.constant * n.grad.row(r); });
}

// ---- exp: y = e^a;  da += g ⊙ y -----------------------------------------------

Var exp(Tape& t, Var a) {
  Node& n = t.push("exp", {a.id}, t.value(a).rows(), t.value(a).cols(), exp_backward);
  n.value = t.value(a).array().exp().matrix();
  return t.last();
}

static void exp_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  if (!a.needs_grad) return;
  n.for_each_grad_row(
      [&](Index r) { a.grad_for_row(r) += n.grad.row(r).cwiseProduct(n.value.row(r)); });
}

// ---- min: y = min_j x_j element-wise; index[e] = the first j holding it ----------
// d x_j[e] += g[e] for j = index[e] only.

Var min(Tape& t, const std::vector<Var>& xs) {
  if (xs.empty()) throw ShapeError("min: no inputs");
  for (Var x : xs) check_same_shape("min", t.value(xs[0]), t.value(x));
  const Matrix& first = t.value(xs[0]);
  Node& n = detail::push_list(t, "min", xs, first.rows(), first.cols(), min_backward);
  n.value = t.value(xs[0]);
  n.index.assign(static_cast<std::size_t>(n.value.size()), 0);
  Scalar* y = n.value.data();
  for (std::size_t j = 1; j < xs.size(); ++j) {
    const Scalar* x = t.value(xs[j]).data();
    for (Index e = 0; e < n.value.size(); ++e)
      if (x[e] < y[e]) {  // strict: a tie keeps the earlier input
        y[e] = x[e];
        n.index[static_cast<std::size_t>(e)] = static_cast<Index>(j);
      }
  }
  return t.last();
}

static void min_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  const Index cols = n.grad.cols();
  n.for_each_grad_row([&](Index r) {
    for (Index c = 0; c < cols; ++c) {
      const Index j = n.index[static_cast<std::size_t>(r * cols + c)];
      Node& x = t.node(n.inputs[static_cast<std::size_t>(j)]);
      if (x.needs_grad) x.grad_for_row(r)(c) += n.grad(r, c);
    }
  });
}

// ---- max: y = max(a, b), ties to a; da += g where a >= b, db += g elsewhere -------
// The inputs are never modified, so backward recomputes the mask from them.

Var max(Tape& t, Var a, Var b) {
  check_same_shape("max", t.value(a), t.value(b));
  Node& n = t.push("max", {a.id, b.id}, t.value(a).rows(), t.value(a).cols(), max_backward);
  n.value = (t.value(a).array() >= t.value(b).array())
                .select(t.value(a).array(), t.value(b).array())
                .matrix();
  return t.last();
}

static void max_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& a = t.node(n.inputs[0]);
  Node& b = t.node(n.inputs[1]);
  const Index cols = n.grad.cols();
  n.for_each_grad_row([&](Index r) {
    for (Index c = 0; c < cols; ++c) {
      Node& winner = a.value(r, c) >= b.value(r, c) ? a : b;
      if (winner.needs_grad) winner.grad_for_row(r)(c) += n.grad(r, c);
    }
  });
}

}  // namespace ad
