// autodiff/ops.h: every differentiable operation the prover needs.
//
// Each op is a free function that checks shapes (throwing ShapeError naming
// the op and both shapes), computes its value, and appends one node to the
// tape. Its backward rule lives beside it in ops_<group>.cpp. Shapes are
// written (rows, cols); "n" is a row count, "d" an embedding dimension.
#pragma once

#include "autodiff/tape.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace ad {

// Thrown when an op's inputs have shapes it cannot combine.
struct ShapeError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// ---- gathers (ops_gather.cpp) ---------------------------------------------
// Rows `rows` of a parameter table: (rows.size(), dim). Backward scatter-adds
// into the table's gradient (a row gathered twice receives both gradients).
Var gather(Tape& t, Parameter& table, const std::vector<Index>& rows);
// Rows `rows` of a node: (rows.size(), cols). Repeating rows is how a goal is
// broadcast against the k facts retrieved for it.
Var gather_rows(Tape& t, Var x, const std::vector<Index>& rows);
// Side by side: (n, c1 + c2 + ...). All inputs need the same row count.
Var concat_cols(Tape& t, const std::vector<Var>& xs);
// Stacked: (n1 + n2 + ..., c). All inputs need the same column count.
Var concat_rows(Tape& t, const std::vector<Var>& xs);
// Columns [begin, begin + count) of x: (n, count).
Var slice_cols(Tape& t, Var x, Index begin, Index count);

// ---- element-wise (ops_elementwise.cpp) -----------------------------------
Var add(Tape& t, Var a, Var b);          // a + b, same shape
Var sub(Tape& t, Var a, Var b);          // a - b, same shape
Var mul(Tape& t, Var a, Var b);          // a * b element-wise, same shape
Var scale(Tape& t, Var a, Scalar c);     // c * a
Var exp(Tape& t, Var a);                 // e^a
// Element-wise minimum of several same-shape inputs. The gradient goes to the
// input holding the minimum; on a tie, to the first such input (lowest
// argument position), so exactly one input receives each gradient entry.
Var min(Tape& t, const std::vector<Var>& xs);
Var max(Tape& t, Var a, Var b);          // element-wise, ties to `a`

// ---- reductions (ops_reduce.cpp) --------------------------------------------
Var sum(Tape& t, Var x);                 // (1, 1)
Var mean(Tape& t, Var x);                // (1, 1)
// Maximum over consecutive row segments of a column vector: x is (n, 1) and
// `segment_sizes` (each >= 1) sum to n; the result is (segments, 1). The
// gradient goes to the arg-max of each segment, the first one on a tie.
Var segment_max(Tape& t, Var x, const std::vector<Index>& segment_sizes);
// The same with every segment of size k: (n, 1) -> (n / k, 1).
Var segment_max(Tape& t, Var x, Index k);
// A soft segment_max: each segment's mean weighted by softmax(x / temperature)
// over the segment; below the max, and equal to it as temperature -> 0. Every
// row receives gradient (training explores more than one proof path).
Var segment_soft_max(Tape& t, Var x, const std::vector<Index>& segment_sizes, Scalar temperature);

// Mean of consecutive row segments of a matrix: x is (n, d) and
// `segment_sizes` (each >= 1) sum to n; row s of the (segments, d) result is
// the mean of segment s's rows (how a phrase's embedding is read from its
// words' rows). Each row of a segment gets the segment's gradient / size.
Var segment_mean(Tape& t, Var x, const std::vector<Index>& segment_sizes);

// ---- distances and the kernel (ops_kernel.cpp) ----------------------------
// Squared distances are clipped to [kMinSquaredDistance, kMaxSquaredDistance]
// before the square root: ‖·‖ has no gradient at 0, and far-apart points
// would otherwise give kernels that underflow. Clipped entries get no gradient.
inline constexpr Scalar kMinSquaredDistance = 1e-6;
inline constexpr Scalar kMaxSquaredDistance = 1e3;
// The distance the kernel and the norm see: √s, with s clipped first.
inline Scalar clipped_distance(Scalar squared_distance) {
  const Scalar s = squared_distance < kMinSquaredDistance ? kMinSquaredDistance
                   : squared_distance > kMaxSquaredDistance ? kMaxSquaredDistance
                                                            : squared_distance;
  return std::sqrt(s);
}
// NTP's RBF kernel of a squared distance s = ‖x - y‖²:  k = exp(-√clip(s)).
// The one place the formula is written: the ops below compute it on the
// tape, and the prover's plain-double scoring and the rules' confidence call
// it directly, so that every kernel value in the library agrees to the bit.
inline Scalar rbf_of_squared_distance(Scalar squared_distance) {
  return std::exp(-clipped_distance(squared_distance));
}
// Row-wise Euclidean norm: (n, d) -> (n, 1).
Var l2_norm_rows(Tape& t, Var x);
// The RBF kernel of NTP, fused: k(x_i, y_i) = exp(-‖x_i - y_i‖), (n, d) x (n, d) -> (n, 1).
Var rbf_kernel(Tape& t, Var x, Var y);
// The same between gathered rows, without storing them: equal to
// rbf_kernel(gather_rows(x, x_rows), gather_rows(y, y_rows)) but it never
// materialises the two (n, d) matrices, which dominate the cost of scoring B
// goals against k facts each (x_rows repeats each goal k times). x is (a, d),
// y is (b, d), x_rows and y_rows have the same length n; result (n, 1).
Var rbf_kernel_rows(Tape& t, Var x, const std::vector<Index>& x_rows, Var y,
                    const std::vector<Index>& y_rows);

// ---- linear algebra (ops_linalg.cpp) ----------------------------------------
Var matmul(Tape& t, Var a, Var b);       // (n, m) x (m, p) -> (n, p)
// a bᵀ without forming bᵀ: (n, d) x (m, d) -> (n, m). Scores n queries
// against every row of a table at once (ComplEx's 1-vs-all loss).
Var matmul_transposed(Tape& t, Var a, Var b);
Var softmax_rows(Tape& t, Var x);        // row-wise softmax, same shape

// ---- losses (ops_loss.cpp) ----------------------------------------------------
inline constexpr Scalar kMinProbability = 1e-10;
Var log_sigmoid(Tape& t, Var x);         // log(1 / (1 + e^-x)), element-wise, stable
// Mean binary cross-entropy of probabilities p (n, 1) against 0/1 labels (n):
// -mean(y log p + (1 - y) log(1 - p)), with p clipped to [1e-10, 1] and 1 - p
// to [1e-10, 1]. Clipped entries get no gradient. Result (1, 1).
Var binary_cross_entropy(Tape& t, Var p, const std::vector<Scalar>& labels);
// Mean cross-entropy of row-wise softmaxes of logits x (n, m) against one
// target column per row: -1/n Σ_i log softmax(x_i)[targets_i], each target in
// [0, m). Computed from log-sum-exp, so it stays finite at any logits.
// Result (1, 1).
Var softmax_cross_entropy(Tape& t, Var x, const std::vector<Index>& targets);

// Mean cross-entropy of groups of probabilities, each against its first row:
// p (n, 1) holds n / group consecutive groups of `group` rows, and group g
// contributes -log(p_g0 / Σ_j p_gj), the softmax over log p. Probabilities
// that are kernels, e^-distance, make it a softmax over minus the distances:
// a ranking of each group's first row (a positive) above the others (its
// corruptions). Each p is clipped to [1e-10, 1] first; clipped entries get
// no gradient. Result (1, 1).
Var group_cross_entropy(Tape& t, Var p, Index group);

// Shape text "(r, c)" for error messages.
std::string shape_of(const Matrix& m);

}  // namespace ad
