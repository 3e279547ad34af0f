// autodiff/tape.h: a small reverse-mode automatic differentiation tape over
// Eigen matrices, written for the Neural Theorem Prover.
//
// The design, in three sentences. Every operation appends one Node to a flat
// vector (the tape) and refers to its inputs by index, so creation order is a
// topological order and the backward pass is a plain reverse loop. Each op is a
// small free function (ops.h) whose backward rule sits right next to its
// forward code and is stored in the node as a plain function pointer. Learnable
// tables (embeddings) live outside the tape as Parameters; a `gather` reads
// rows from one, and backward scatters gradients into just those rows.
//
// What it leaves out: higher-order derivatives, in-place ops, broadcasting
// (ops that need it repeat rows explicitly with gather_rows) and GPUs.
// Values are double precision: the finite-difference checks need it, and NTP's
// graphs are small enough that memory traffic, not flops, sets the pace.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ad {

using Scalar = double;
// Row-major so that a row is one embedding, contiguous in memory.
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Index = Eigen::Index;

class Tape;
struct Parameter;

// A handle to a node: its position on one tape. Cheap to copy.
struct Var {
  int id = -1;
  bool valid() const { return id >= 0; }
};

// Computes the gradients of a node's inputs from the node's own gradient.
// Plain function pointer: trivially copyable, nothing to destroy.
using BackwardFn = void (*)(Tape& tape, int node_id);

// One recorded operation. Fields past `backward` are scratch for the op that
// created the node; each op documents what it keeps there.
struct Node {
  Matrix value;                 // (rows, cols), the forward result
  Matrix grad;                  // same shape, filled during backward(); rules add
                                // into it only through grad_for_all/grad_for_row
  BackwardFn backward = nullptr;  // nullptr for constants (leaves)
  const char* op = "constant";  // op name, for error messages
  std::vector<int> inputs;      // ids of the input nodes, in argument order
  std::vector<Index> index;     // op data: gathered rows, arg-min/arg-max, segments
  Matrix aux;                   // op data: a saved intermediate (backward factors, labels)
  Parameter* param = nullptr;   // gather: the table that receives the gradient
  Scalar constant = 0;          // op data: scale factor
  bool needs_grad = false;      // some input (transitively) depends on a Parameter

  // Which rows of `grad` backward rules have written since backward() last
  // zeroed it: all of them (grad_dense), or just `grad_rows`, each listed once
  // (grad_row_marked flags them). backward() re-zeroes only those rows, and
  // rules visit only those rows: min and segment_max pass each gradient entry
  // to a single input, so most rows of NTP's big gathered matrices stay zero.
  // A rule writing to `grad` directly would leave stale rows behind.
  bool grad_dense = false;
  std::vector<Index> grad_rows;
  std::vector<uint8_t> grad_row_marked;  // (rows) once backward() has run

  // For backward rules: the input gradient to add into, recording the write.
  Matrix& grad_for_all() {
    grad_dense = true;
    return grad;
  }
  Matrix::RowXpr grad_for_row(Index row) {
    if (!grad_dense && !grad_row_marked[static_cast<std::size_t>(row)]) {
      grad_row_marked[static_cast<std::size_t>(row)] = 1;
      grad_rows.push_back(row);
    }
    return grad.row(row);
  }
  // Calls f(row) for every row of `grad` that may be non-zero.
  template <class F>
  void for_each_grad_row(F f) const {
    if (grad_dense) {
      for (Index row = 0; row < grad.rows(); ++row) f(row);
    } else {
      for (Index row : grad_rows) f(row);
    }
  }
};

// A learnable table, e.g. the embeddings of all predicates: (rows, dim).
// Its gradient is kept dense but only the rows listed in `touched` are
// non-zero; optimisers visit just those rows and reset them (optim.h).
struct Parameter {
  std::string name;
  Matrix value;                 // (rows, dim)
  Matrix grad;                  // (rows, dim), zero outside `touched`
  std::vector<Index> touched;   // rows with a non-zero gradient, each once
  std::vector<uint8_t> is_touched;  // (rows), flag per row

  Parameter() = default;
  Parameter(std::string name, Index rows, Index dim);
  // Adds `g` (1, dim) to the gradient of row `row`, recording the row.
  void accumulate_row(Index row, const Eigen::Ref<const Matrix>& g);
  // Zeroes the gradient of the touched rows and forgets them.
  void clear_grad();
};

// The tape. Reused across steps: clear() keeps every node's storage, so a
// training loop that builds graphs of the same shape stops allocating after
// its first step.
class Tape {
 public:
  explicit Tape(std::size_t reserve_nodes = 1024);

  // A leaf holding `value`; it receives no gradient (variable() makes one that does).
  Var constant(const Matrix& value);
  Var variable(const Matrix& value);  // a leaf whose gradient is kept (tests)

  const Matrix& value(Var v) const { return node(v).value; }
  const Matrix& grad(Var v) const { return node(v).grad; }
  Scalar scalar(Var v) const;  // value of a (1,1) node

  // Seeds d(out)/d(out) = 1 for the (1,1) node `out` and runs every backward
  // rule from `out` down to the first node. Parameter gradients accumulate
  // (call Parameter::clear_grad or an optimiser step between batches).
  void backward(Var out);

  // Forgets every node but keeps their memory for the next graph.
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }

  // For op implementations: append a node and get it back to fill in.
  // `inputs` are checked to belong to this tape. A push may move the nodes, so
  // it invalidates references to nodes taken before it (the new one included).
  Node& push(const char* op, std::vector<int> inputs, Index rows, Index cols, BackwardFn backward);
  // The same without building a vector: ops use this one, so that a reused
  // tape does no heap allocation in steady state.
  Node& push(const char* op, std::initializer_list<int> inputs, Index rows, Index cols,
             BackwardFn backward);
  Node& node(Var v) { return node(v.id); }
  const Node& node(Var v) const { return node(v.id); }
  Node& node(int id);
  const Node& node(int id) const;
  Var last() const { return Var{static_cast<int>(size_) - 1}; }

 private:
  std::vector<Node> nodes_;  // slots [0, size_) are the live graph
  std::size_t size_ = 0;
};

}  // namespace ad
