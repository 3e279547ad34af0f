// autodiff/ops_kernel.cpp: row-wise Euclidean norms and NTP's RBF kernel,
// k(x, y) = exp(-‖x - y‖), fused into one node so that the (n, d) difference
// is never stored; rbf_kernel_rows also reads its rows through indices, so the
// broadcast goal rows and the gathered fact rows are not stored either.
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
#include <stdexcept>
#include <string>

namespace ad {

// Backward rules, each defined right after its forward op.
static void l2_norm_rows_backward(Tape& t, int id);
static void rbf_kernel_backward(Tape& t, int id);
static void rbf_kernel_rows_backward(Tape& t, int id);

// Whether a squared distance falls outside the clip range (no gradient then).
static bool clipped(Scalar s) { return s < kMinSquaredDistance || s > kMaxSquaredDistance; }

// ---- l2_norm_rows: y[i] = √clip(‖x[i]‖²);  dx[i] += g[i] x[i] / y[i]; aux = 1/y or 0 --

Var l2_norm_rows(Tape& t, Var x) {
  const Index rows = t.value(x).rows();
  Node& n = t.push("l2_norm_rows", {x.id}, rows, 1, l2_norm_rows_backward);
  n.aux.resize(rows, 1);
  const Matrix& xv = t.value(x);
  for (Index i = 0; i < rows; ++i) {
    const Scalar s = xv.row(i).squaredNorm();
    const Scalar r = clipped_distance(s);
    n.value(i, 0) = r;
    n.aux(i, 0) = clipped(s) ? 0 : 1 / r;
  }
  return t.last();
}

static void l2_norm_rows_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row([&](Index i) {
    const Scalar f = n.grad(i, 0) * n.aux(i, 0);
    if (f != 0) x.grad_for_row(i) += f * x.value.row(i);
  });
}

// ---- rbf_kernel: y[i] = exp(-√clip(‖x[i] - y[i]‖²)); aux = k/r or 0 -----------------
// dx[i] += -g[i] aux[i] (x[i] - y[i]),  dy[i] -= the same.

// One kernel value and its backward factor (k/r, or 0 where clipped).
static void rbf_one(const Matrix& x, Index x_row, const Matrix& y, Index y_row, Scalar& k,
                    Scalar& factor) {
  const Scalar s = (x.row(x_row) - y.row(y_row)).squaredNorm();
  k = rbf_of_squared_distance(s);
  factor = clipped(s) ? 0 : k / clipped_distance(s);
}

Var rbf_kernel(Tape& t, Var x, Var y) {
  detail::check_same_shape("rbf_kernel", t.value(x), t.value(y));
  const Index rows = t.value(x).rows();
  Node& n = t.push("rbf_kernel", {x.id, y.id}, rows, 1, rbf_kernel_backward);
  n.aux.resize(rows, 1);
  const Matrix& xv = t.value(x);
  const Matrix& yv = t.value(y);
  for (Index i = 0; i < rows; ++i) rbf_one(xv, i, yv, i, n.value(i, 0), n.aux(i, 0));
  return t.last();
}

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

// ---- rbf_kernel_rows: y[i] = rbf(x[xr[i]], y[yr[i]]); index = xr then yr; aux as above --

Var rbf_kernel_rows(Tape& t, Var x, const std::vector<Index>& x_rows, Var y,
                    const std::vector<Index>& y_rows) {
  const Matrix& xv = t.value(x);
  const Matrix& yv = t.value(y);
  if (xv.cols() != yv.cols())
    detail::throw_shapes("rbf_kernel_rows", xv, yv, "differ in columns");
  if (x_rows.size() != y_rows.size())
    throw ShapeError("rbf_kernel_rows: " + std::to_string(x_rows.size()) + " rows of x but " +
                     std::to_string(y_rows.size()) + " rows of y");
  for (Index r : x_rows)
    if (r < 0 || r >= xv.rows())
      throw std::out_of_range("rbf_kernel_rows: row " + std::to_string(r) +
                              " out of range for x " + shape_of(xv));
  for (Index r : y_rows)
    if (r < 0 || r >= yv.rows())
      throw std::out_of_range("rbf_kernel_rows: row " + std::to_string(r) +
                              " out of range for y " + shape_of(yv));
  const auto rows = static_cast<Index>(x_rows.size());
  Node& n = t.push("rbf_kernel_rows", {x.id, y.id}, rows, 1, rbf_kernel_rows_backward);
  n.aux.resize(rows, 1);
  n.index.assign(x_rows.begin(), x_rows.end());
  n.index.insert(n.index.end(), y_rows.begin(), y_rows.end());
  const Matrix& a = t.value(x);
  const Matrix& b = t.value(y);
  for (Index i = 0; i < rows; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    rbf_one(a, x_rows[ui], b, y_rows[ui], n.value(i, 0), n.aux(i, 0));
  }
  return t.last();
}

static void rbf_kernel_rows_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  Node& y = t.node(n.inputs[1]);
  const auto count = static_cast<std::size_t>(n.value.rows());
  n.for_each_grad_row([&](Index i) {
    const Scalar f = n.grad(i, 0) * n.aux(i, 0);
    if (f == 0) return;
    const Index xr = n.index[static_cast<std::size_t>(i)];
    const Index yr = n.index[count + static_cast<std::size_t>(i)];
    if (x.needs_grad) x.grad_for_row(xr) -= f * (x.value.row(xr) - y.value.row(yr));
    if (y.needs_grad) y.grad_for_row(yr) += f * (x.value.row(xr) - y.value.row(yr));
  });
}

}  // namespace ad
