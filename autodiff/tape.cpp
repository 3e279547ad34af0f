// autodiff/tape.cpp: the tape itself (node storage, the backward loop) and
// Parameter, the learnable table with a row-sparse gradient. The ops live in
// ops_*.cpp and the optimisers in optim.cpp.
#include "autodiff/tape.h"

#include "autodiff/ops.h"

#include <stdexcept>
#include <string>

namespace ad {

std::string shape_of(const Matrix& m) {
  return "(" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + ")";
}

// ---- Parameter ---------------------------------------------------------------

Parameter::Parameter(std::string name_, Index rows, Index dim)
    : name(std::move(name_)),
      value(Matrix::Zero(rows, dim)),
      grad(Matrix::Zero(rows, dim)),
      is_touched(static_cast<std::size_t>(rows), 0) {}

void Parameter::accumulate_row(Index row, const Eigen::Ref<const Matrix>& g) {
  if (row < 0 || row >= grad.rows())
    throw std::out_of_range("Parameter::accumulate_row: row " + std::to_string(row) +
                            " out of range for '" + name + "' " + shape_of(grad));
  if (g.rows() != 1 || g.cols() != grad.cols())
    throw ShapeError("Parameter::accumulate_row: shapes " + shape_of(g) + " and (1, " +
                     std::to_string(grad.cols()) + ") differ");
  grad.row(row) += g;
  if (!is_touched[static_cast<std::size_t>(row)]) {
    is_touched[static_cast<std::size_t>(row)] = 1;
    touched.push_back(row);
  }
}

void Parameter::clear_grad() {
  for (Index row : touched) {
    grad.row(row).setZero();
    is_touched[static_cast<std::size_t>(row)] = 0;
  }
  touched.clear();
}

// ---- Tape --------------------------------------------------------------------

Tape::Tape(std::size_t reserve_nodes) { nodes_.reserve(reserve_nodes); }

Node& Tape::node(int id) {
  if (id < 0 || static_cast<std::size_t>(id) >= size_)
    throw std::out_of_range("tape: node " + std::to_string(id) + " is not on this tape (size " +
                            std::to_string(size_) + ")");
  return nodes_[static_cast<std::size_t>(id)];
}

const Node& Tape::node(int id) const { return const_cast<Tape*>(this)->node(id); }

Node& Tape::push(const char* op, std::vector<int> inputs, Index rows, Index cols,
                 BackwardFn backward) {
  bool needs_grad = false;
  for (int id : inputs) needs_grad |= node(id).needs_grad;
  Node& n = push(op, {}, rows, cols, backward);
  n.inputs.assign(inputs.begin(), inputs.end());
  n.needs_grad = needs_grad;
  return n;
}

Node& Tape::push(const char* op, std::initializer_list<int> inputs, Index rows, Index cols,
                 BackwardFn backward) {
  bool needs_grad = false;
  for (int id : inputs) needs_grad |= node(id).needs_grad;
  if (size_ == nodes_.size()) nodes_.emplace_back();
  Node& n = nodes_[size_++];
  n.value.resize(rows, cols);  // keeps the old buffer when the size is unchanged
  n.backward = backward;
  n.op = op;
  n.inputs.assign(inputs.begin(), inputs.end());
  n.index.clear();
  n.param = nullptr;
  n.constant = 0;
  n.needs_grad = needs_grad;
  return n;
}

Var Tape::constant(const Matrix& value) {
  push("constant", {}, value.rows(), value.cols(), nullptr).value = value;
  return last();
}

Var Tape::variable(const Matrix& value) {
  Node& n = push("variable", {}, value.rows(), value.cols(), nullptr);
  n.value = value;
  n.needs_grad = true;
  return last();
}

Scalar Tape::scalar(Var v) const {
  const Matrix& m = node(v).value;
  if (m.rows() != 1 || m.cols() != 1)
    throw ShapeError(std::string("scalar: shape ") + shape_of(m) + " is not (1, 1)");
  return m(0, 0);
}

// Zeroes a node's gradient, touching only the rows written since the last
// time when the shape is unchanged (a reused slot of a same-shape graph).
static void zero_grad(Node& n) {
  const Index rows = n.value.rows(), cols = n.value.cols();
  for (Index row : n.grad_rows) n.grad_row_marked[static_cast<std::size_t>(row)] = 0;
  if (n.grad.rows() != rows || n.grad.cols() != cols) {
    n.grad.setZero(rows, cols);
    n.grad_row_marked.assign(static_cast<std::size_t>(rows), 0);
  } else if (n.grad_dense) {
    n.grad.setZero();
  } else {
    for (Index row : n.grad_rows) n.grad.row(row).setZero();
  }
  n.grad_rows.clear();
  n.grad_dense = false;
}

void Tape::backward(Var out) {
  Node& root = node(out);
  if (root.value.rows() != 1 || root.value.cols() != 1)
    throw ShapeError(std::string("backward: output of ") + root.op + " has shape " +
                     shape_of(root.value) + ", not (1, 1)");
  for (int i = 0; i <= out.id; ++i) {
    Node& n = nodes_[static_cast<std::size_t>(i)];
    if (n.needs_grad || i == out.id) zero_grad(n);
  }
  root.grad_for_row(0).setOnes();
  for (int i = out.id; i >= 0; --i) {
    const Node& n = nodes_[static_cast<std::size_t>(i)];
    if (n.needs_grad && n.backward) n.backward(*this, i);
  }
}

}  // namespace ad
