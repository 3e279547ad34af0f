// autodiff/ops_gather.cpp: ops that move rows and columns around without
// arithmetic: gather (from a Parameter), gather_rows, concat_cols,
// concat_rows and slice_cols. Their backward rules route gradients back to
// where the entries came from, adding when a row was read twice, and visit
// only the rows of the output gradient that may be non-zero.
#include "autodiff/ops_internal.h"

#include <stdexcept>
#include <string>

namespace ad {

// Backward rules, each defined right after its forward op.
static void gather_backward(Tape& t, int id);
static void gather_rows_backward(Tape& t, int id);
static void concat_cols_backward(Tape& t, int id);
static void concat_rows_backward(Tape& t, int id);
static void slice_cols_backward(Tape& t, int id);

// Throws std::out_of_range naming the op if a row is outside [0, limit); the
// message is only built then, so a valid call allocates nothing.
static void check_rows(const char* op, const std::vector<Index>& rows, Index limit,
                       const char* what, const std::string& name, const Matrix& m) {
  for (Index r : rows)
    if (r < 0 || r >= limit)
      throw std::out_of_range(std::string(op) + ": row " + std::to_string(r) +
                              " out of range for " + what + name + " " + shape_of(m));
}

// Copies out.row(i) = src.row(rows[i]).
static void copy_rows(Matrix& out, const Matrix& src, const std::vector<Index>& rows) {
  for (Index i = 0; i < out.rows(); ++i) out.row(i) = src.row(rows[static_cast<std::size_t>(i)]);
}

// ---- gather: y[i] = table[rows[i]]; index = rows, param = &table -----------

Var gather(Tape& t, Parameter& table, const std::vector<Index>& rows) {
  check_rows("gather", rows, table.value.rows(), "parameter ", table.name, table.value);
  if (table.grad.rows() != table.value.rows() || table.grad.cols() != table.value.cols() ||
      table.is_touched.size() != static_cast<std::size_t>(table.value.rows()))
    throw ShapeError("gather: parameter '" + table.name + "' has value " +
                     shape_of(table.value) + " but gradient " + shape_of(table.grad));
  Node& n = t.push("gather", {}, static_cast<Index>(rows.size()), table.value.cols(),
                   gather_backward);
  n.param = &table;
  n.index.assign(rows.begin(), rows.end());
  n.needs_grad = true;
  copy_rows(n.value, table.value, rows);
  return t.last();
}

static void gather_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Parameter& p = *n.param;
  n.for_each_grad_row([&](Index i) {
    const Index r = n.index[static_cast<std::size_t>(i)];
    p.grad.row(r) += n.grad.row(i);
    if (!p.is_touched[static_cast<std::size_t>(r)]) {
      p.is_touched[static_cast<std::size_t>(r)] = 1;
      p.touched.push_back(r);
    }
  });
}

// ---- gather_rows: y[i] = x[rows[i]]; index = rows ----------------------------

Var gather_rows(Tape& t, Var x, const std::vector<Index>& rows) {
  check_rows("gather_rows", rows, t.value(x).rows(), "input", "", t.value(x));
  Node& n = t.push("gather_rows", {x.id}, static_cast<Index>(rows.size()), t.value(x).cols(),
                   gather_rows_backward);
  n.index.assign(rows.begin(), rows.end());
  copy_rows(n.value, t.value(x), n.index);
  return t.last();
}

static void gather_rows_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row(
      [&](Index i) { x.grad_for_row(n.index[static_cast<std::size_t>(i)]) += n.grad.row(i); });
}

// ---- concat_cols: y = [x0 x1 ...] ------------------------------------------------

Var concat_cols(Tape& t, const std::vector<Var>& xs) {
  if (xs.empty()) throw ShapeError("concat_cols: no inputs");
  const Index rows = t.value(xs[0]).rows();
  Index cols = 0;
  for (Var x : xs) {
    if (t.value(x).rows() != rows)
      detail::throw_shapes("concat_cols", t.value(xs[0]), t.value(x), "differ in rows");
    cols += t.value(x).cols();
  }
  Node& n = detail::push_list(t, "concat_cols", xs, rows, cols, concat_cols_backward);
  Index begin = 0;
  for (Var x : xs) {
    const Matrix& v = t.value(x);
    n.value.middleCols(begin, v.cols()) = v;
    begin += v.cols();
  }
  return t.last();
}

static void concat_cols_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Index begin = 0;
  for (int in : n.inputs) {
    Node& x = t.node(in);
    const Index c = x.value.cols();
    if (x.needs_grad) x.grad_for_all() += n.grad.middleCols(begin, c);
    begin += c;
  }
}

// ---- concat_rows: y = [x0; x1; ...] ----------------------------------------------

Var concat_rows(Tape& t, const std::vector<Var>& xs) {
  if (xs.empty()) throw ShapeError("concat_rows: no inputs");
  const Index cols = t.value(xs[0]).cols();
  Index rows = 0;
  for (Var x : xs) {
    if (t.value(x).cols() != cols)
      detail::throw_shapes("concat_rows", t.value(xs[0]), t.value(x), "differ in columns");
    rows += t.value(x).rows();
  }
  Node& n = detail::push_list(t, "concat_rows", xs, rows, cols, concat_rows_backward);
  Index begin = 0;
  for (Var x : xs) {
    const Matrix& v = t.value(x);
    n.value.middleRows(begin, v.rows()) = v;
    begin += v.rows();
  }
  return t.last();
}

static void concat_rows_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Index begin = 0;
  for (int in : n.inputs) {
    Node& x = t.node(in);
    const Index r = x.value.rows();
    if (x.needs_grad) x.grad_for_all() += n.grad.middleRows(begin, r);
    begin += r;
  }
}

// ---- slice_cols: y = x[:, begin : begin + count]; index = {begin} ---------------

Var slice_cols(Tape& t, Var x, Index begin, Index count) {
  const Matrix& xv = t.value(x);
  if (begin < 0 || count < 0 || begin + count > xv.cols())
    throw ShapeError("slice_cols: columns [" + std::to_string(begin) + ", " +
                     std::to_string(begin + count) + ") out of range for shape " +
                     shape_of(xv));
  Node& n = t.push("slice_cols", {x.id}, xv.rows(), count, slice_cols_backward);
  n.index.assign(1, begin);
  n.value = t.value(x).middleCols(begin, count);
  return t.last();
}

static void slice_cols_backward(Tape& t, int id) {
  const Node& n = t.node(id);
  Node& x = t.node(n.inputs[0]);
  if (!x.needs_grad) return;
  n.for_each_grad_row([&](Index r) {
    x.grad_for_row(r).segment(n.index[0], n.value.cols()) += n.grad.row(r);
  });
}

}  // namespace ad
