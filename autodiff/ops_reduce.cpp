// autodiff/ops_reduce.cpp: reductions to fewer entries: sum and mean (to a
// scalar) and segment_max (the best of each run of consecutive rows, which is
// how NTP keeps the best of the k facts retrieved for a goal) and its soft
// version segment_soft_max (every row of a segment gets gradient), and
// segment_mean (a phrase's embedding from its words' rows).
#include "autodiff/ops_internal.h"

#include <string>

namespace ad {

// Backward rules, each defined right after its forward op.
static void sum_backward(Tape& t, int id);
static void mean_backward(Tape& t, int id);
static void segment_max_backward(Tape& t, int id);
static void segment_soft_max_backward(Tape& t, int id);
static void segment_mean_backward(Tape& t, int id);

// ---- sum: y = Σ x;  dx += g ---------------------------------------------------

Var sum(Tape& t, Var x) {
  Node& n = t.push("sum", {x.id}, 1, 1, sum_backward);
  n.value(0, 0) = t.value(x).sum();
  return t.last();
}

static void sum_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (x.needs_grad) x.grad_for_all().array() += n.grad(0, 0);
}

// ---- mean: y = Σ x / size;  dx += g / size --------------------------------------

Var mean(Tape& t, Var x) {
  if (t.value(x).size() == 0)
    throw ShapeError("mean: shape " + shape_of(t.value(x)) + " has no entries");
  Node& n = t.push("mean", {x.id}, 1, 1, mean_backward);
  n.value(0, 0) = t.value(x).mean();
  return t.last();
}

static void mean_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (x.needs_grad)
    x.grad_for_all().array() += n.grad(0, 0) / static_cast<Scalar>(x.value.size());
}

// ---- segment_max: y[s] = max of x over segment s; index[s] = its first arg-max row --
// dx[index[s]] += g[s].

static void check_column(const Matrix& x) {
  if (x.cols() != 1)
    throw ShapeError("segment_max: shapes " + shape_of(x) + " and (" +
                     std::to_string(x.rows()) + ", 1) differ: input must be a column");
}

// Fills y and index for segments [begin, begin + size); the first maximum wins.
static void segment_max_one(const Scalar* x, Index begin, Index size, Scalar& y, Index& arg) {
  arg = begin;
  for (Index r = begin + 1; r < begin + size; ++r)
    if (x[r] > x[arg]) arg = r;
  y = x[arg];
}

Var segment_max(Tape& t, Var x, const std::vector<Index>& segment_sizes) {
  const Matrix& xv = t.value(x);
  check_column(xv);
  Index total = 0;
  for (Index size : segment_sizes) {
    if (size < 1)
      throw ShapeError("segment_max: segment size " + std::to_string(size) + " is not >= 1");
    total += size;
  }
  if (total != xv.rows())
    throw ShapeError("segment_max: segment sizes sum to " + std::to_string(total) +
                     " but the input has shape " + shape_of(xv));
  const Index segments = static_cast<Index>(segment_sizes.size());
  Node& n = t.push("segment_max", {x.id}, segments, 1, segment_max_backward);
  n.index.resize(segment_sizes.size());
  const Scalar* xs = t.value(x).data();
  Index begin = 0;
  for (Index s = 0; s < segments; ++s) {
    const Index size = segment_sizes[static_cast<std::size_t>(s)];
    segment_max_one(xs, begin, size, n.value(s, 0), n.index[static_cast<std::size_t>(s)]);
    begin += size;
  }
  return t.last();
}

Var segment_max(Tape& t, Var x, Index k) {
  const Matrix& xv = t.value(x);
  check_column(xv);
  if (k < 1 || xv.rows() % k != 0)
    throw ShapeError("segment_max: segment size " + std::to_string(k) +
                     " does not divide the input shape " + shape_of(xv));
  const Index segments = xv.rows() / k;
  Node& n = t.push("segment_max", {x.id}, segments, 1, segment_max_backward);
  n.index.resize(static_cast<std::size_t>(segments));
  const Scalar* xs = t.value(x).data();
  for (Index s = 0; s < segments; ++s)
    segment_max_one(xs, s * k, k, n.value(s, 0), n.index[static_cast<std::size_t>(s)]);
  return t.last();
}

static void segment_max_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row(
      [&](Index s) { x.grad_for_row(n.index[static_cast<std::size_t>(s)])(0) += n.grad(s, 0); });
}

// ---- segment_soft_max: y[s] = Σ_i w_i x_i over segment s, w = softmax(x / τ) --
// A smooth max: a weighted mean of the segment leaning towards its largest
// entries, never above the max and equal to it as τ -> 0. Every row gets
//   dx_i += g[s] w_i (1 + (x_i - y[s]) / τ),
// which is the point of it: with hard max only the winner learns.
// aux holds w (n, 1); index holds the segments' first rows, then n.

// The first row of each segment, then `rows`; throws ShapeError, naming `op`,
// for a segment size below 1 or sizes that do not sum to `rows`.
static std::vector<Index> segment_starts(const char* op, const std::vector<Index>& segment_sizes, Index rows) {
  std::vector<Index> first{0};
  for (Index size : segment_sizes) {
    if (size < 1) throw ShapeError(std::string(op) + ": segment size " + std::to_string(size) + " is not >= 1");
    first.push_back(first.back() + size);
  }
  if (first.back() != rows)
    throw ShapeError(std::string(op) + ": segment sizes sum to " + std::to_string(first.back()) +
                     " but the input has " + std::to_string(rows) + " rows");
  return first;
}

Var segment_soft_max(Tape& t, Var x, const std::vector<Index>& segment_sizes, Scalar temperature) {
  const Matrix& xv = t.value(x);
  if (xv.cols() != 1)
    throw ShapeError("segment_soft_max: shapes " + shape_of(xv) + " and (" + std::to_string(xv.rows()) +
                     ", 1) differ: input must be a column");
  if (!(temperature > 0)) throw ShapeError("segment_soft_max: temperature " + std::to_string(temperature) + " is not > 0");
  const std::vector<Index> first = segment_starts("segment_soft_max", segment_sizes, xv.rows());
  Node& n = t.push("segment_soft_max", {x.id}, static_cast<Index>(segment_sizes.size()), 1, segment_soft_max_backward);
  n.index = first;
  n.aux.resize(xv.rows(), 1);
  n.constant = temperature;
  const Matrix& in = t.value(x);
  for (std::size_t s = 0; s + 1 < first.size(); ++s) {
    const Index begin = first[s], size = first[s + 1] - first[s];
    auto w = n.aux.middleRows(begin, size).array();
    const auto seg = in.middleRows(begin, size).array();
    w = ((seg - seg.maxCoeff()) / temperature).exp();  // shifted: no overflow
    w /= w.sum();
    n.value(static_cast<Index>(s), 0) = (w * seg).sum();
  }
  return t.last();
}

static void segment_soft_max_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  Matrix& dx = x.grad_for_all();
  for (std::size_t s = 0; s + 1 < n.index.size(); ++s) {
    const Scalar g = n.grad(static_cast<Index>(s), 0), y = n.value(static_cast<Index>(s), 0);
    for (Index r = n.index[s]; r < n.index[s + 1]; ++r)
      dx(r, 0) += g * n.aux(r, 0) * (1 + (x.value(r, 0) - y) / n.constant);
  }
}

// ---- segment_mean: y[s] = Σ_{r in s} x[r] / |s|;  dx[r] += g[s] / |s| ------------
// index holds the segments' first rows, then n.

Var segment_mean(Tape& t, Var x, const std::vector<Index>& segment_sizes) {
  const Matrix& xv = t.value(x);
  const std::vector<Index> first = segment_starts("segment_mean", segment_sizes, xv.rows());
  Node& n = t.push("segment_mean", {x.id}, static_cast<Index>(segment_sizes.size()), xv.cols(), segment_mean_backward);
  n.index = first;
  const Matrix& in = t.value(x);
  for (std::size_t s = 0; s + 1 < first.size(); ++s) {
    const Index size = first[s + 1] - first[s];
    n.value.row(static_cast<Index>(s)) = in.middleRows(first[s], size).colwise().sum() / static_cast<Scalar>(size);
  }
  return t.last();
}

static void segment_mean_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row([&](Index s) {
    const std::size_t i = static_cast<std::size_t>(s);
    const Scalar share = Scalar(1) / static_cast<Scalar>(n.index[i + 1] - n.index[i]);
    for (Index r = n.index[i]; r < n.index[i + 1]; ++r) x.grad_for_row(r) += share * n.grad.row(s);
  });
}

}  // namespace ad
