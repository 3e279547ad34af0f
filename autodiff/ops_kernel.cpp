// autodiff/ops_kernel.cpp: row-wise Euclidean norms and NTP's RBF kernel,
// k(x, y) = exp(-‖x - y‖), fused into one node so that the (n, d) difference
// is never stored.
//
// The math, once. With s = ‖v‖² clipped to [kMinSquaredDistance,
// kMaxSquaredDistance] and r = √s:  ∂r/∂v = v / r, and for k = e^-r with
// v = x - y:  ∂k/∂x = -(k / r) v = -∂k/∂y. A clipped entry is constant in v,
// so its gradient is zero. Forward stores the per-row factor (1/r for the
// norm, k/r for the kernel, 0 where clipped) in `aux`, so backward is a
// single scaled row update, skipped where the factor or the incoming gradient
// is zero (clipped rows; rows that min or segment_max did not pick).
#include "autodiff/ops_internal.h"

#include <cmath>

namespace ad {

// Whether a squared distance falls outside the clip range (no gradient then).
static bool clipped(Scalar s) { return s < kMinSquaredDistance || s > kMaxSquaredDistance; }
static Scalar clip_squared(Scalar s) {
  return s < kMinSquaredDistance ? kMinSquaredDistance
                                 : (s > kMaxSquaredDistance ? kMaxSquaredDistance : s);
}

// ---- l2_norm_rows: y[i] = √clip(‖x[i]‖²);  dx[i] += g[i] x[i] / y[i]; aux = 1/y or 0 --

static void l2_norm_rows_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row([&](Index i) {
    const Scalar f = n.grad(i, 0) * n.aux(i, 0);
    if (f != 0) x.grad_for_row(i) += f * x.value.row(i);
  });
}

Var l2_norm_rows(Tape& t, Var x) {
  const Index rows = t.value(x).rows();
  Node& n = t.push("l2_norm_rows", {x.id}, rows, 1, l2_norm_rows_backward);
  n.aux.resize(rows, 1);
  const Matrix& xv = t.value(x);
  for (Index i = 0; i < rows; ++i) {
    const Scalar s = xv.row(i).squaredNorm();
    const Scalar r = std::sqrt(clip_squared(s));
    n.value(i, 0) = r;
    n.aux(i, 0) = clipped(s) ? 0 : 1 / r;
  }
  return t.last();
}

// ---- rbf_kernel: y[i] = exp(-√clip(‖x[i] - y[i]‖²)); aux = k/r or 0 -----------------
// dx[i] += -g[i] aux[i] (x[i] - y[i]),  dy[i] -= the same.

static void rbf_kernel_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  Node& y = t.node(n.inputs[1]);
  n.for_each_grad_row([&](Index i) {
    const Scalar f = n.grad(i, 0) * n.aux(i, 0);
    if (f == 0) return;
    if (x.needs_grad) x.grad_for_row(i) -= f * (x.value.row(i) - y.value.row(i));
    if (y.needs_grad) y.grad_for_row(i) += f * (x.value.row(i) - y.value.row(i));
  });
}

Var rbf_kernel(Tape& t, Var x, Var y) {
  detail::check_same_shape("rbf_kernel", t.value(x), t.value(y));
  const Index rows = t.value(x).rows();
  Node& n = t.push("rbf_kernel", {x.id, y.id}, rows, 1, rbf_kernel_backward);
  n.aux.resize(rows, 1);
  const Matrix& xv = t.value(x);
  const Matrix& yv = t.value(y);
  for (Index i = 0; i < rows; ++i) {
    const Scalar s = (xv.row(i) - yv.row(i)).squaredNorm();
    const Scalar r = std::sqrt(clip_squared(s));
    const Scalar k = std::exp(-r);
    n.value(i, 0) = k;
    n.aux(i, 0) = clipped(s) ? 0 : k / r;
  }
  return t.last();
}

}  // namespace ad
