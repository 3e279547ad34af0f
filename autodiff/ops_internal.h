// autodiff/ops_internal.h: small helpers shared by the ops_*.cpp files (shape
// checks, pushing a node with a list of inputs). Not part of the public API.
#pragma once

#include "autodiff/ops.h"

#include <cmath>
#include <string>
#include <vector>

namespace ad::detail {

[[noreturn]] inline void throw_shapes(const char* op, const Matrix& a, const Matrix& b,
                                      const char* what = "differ") {
  throw ShapeError(std::string(op) + ": shapes " + shape_of(a) + " and " + shape_of(b) + " " +
                   what);
}

inline void check_same_shape(const char* op, const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) throw_shapes(op, a, b);
}

// out.row(i) = softmax(x.row(i)), computed as e^(x - max) / Σ e^(x - max) so
// that no e^ overflows; returns log Σ_j e^x_ij (the row's log-sum-exp). The
// one place softmax_rows and softmax_cross_entropy compute a softmax.
inline Scalar softmax_row(const Matrix& x, Index i, Matrix& out) {
  const Scalar top = x.row(i).maxCoeff();
  out.row(i) = (x.row(i).array() - top).exp().matrix();
  const Scalar sum = out.row(i).sum();
  out.row(i) /= sum;
  return top + std::log(sum);
}

// Pushes a node whose inputs are `xs` (all checked to be on the tape first).
inline Node& push_list(Tape& t, const char* op, const std::vector<Var>& xs, Index rows,
                       Index cols, BackwardFn backward) {
  bool needs_grad = false;
  for (Var x : xs) needs_grad |= t.node(x).needs_grad;
  Node& n = t.push(op, {}, rows, cols, backward);
  n.inputs.clear();
  for (Var x : xs) n.inputs.push_back(x.id);
  n.needs_grad = needs_grad;
  return n;
}

}  // namespace ad::detail
