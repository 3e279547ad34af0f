// Tests of the tape itself (autodiff/tape.cpp): which nodes need gradients,
// the backward loop, reuse after clear(), and Parameter's sparse gradient.
#include "tests/autodiff/gradcheck.h"

#include <stdexcept>

using namespace gradcheck;
using ad::Matrix;

TEST_CASE("needs_grad follows variables and Parameters, not constants") {
  ad::Tape t;
  ad::Parameter table("p", 3, 2);
  const ad::Var c = t.constant(Matrix::Ones(1, 2));
  const ad::Var v = t.variable(Matrix::Ones(1, 2));
  const ad::Var g = ad::gather(t, table, {0});
  CHECK_FALSE(t.node(c).needs_grad);
  CHECK(t.node(v).needs_grad);
  CHECK(t.node(g).needs_grad);
  CHECK_FALSE(t.node(ad::exp(t, c)).needs_grad);
  CHECK(t.node(ad::add(t, c, v)).needs_grad);
  CHECK(t.node(ad::mul(t, g, c)).needs_grad);
  CHECK(t.node(ad::min(t, {c, c, g})).needs_grad);
}

TEST_CASE("backward wants a (1, 1) output") {
  ad::Tape t;
  const ad::Var v = t.variable(Matrix::Ones(2, 2));
  CHECK_THROWS_AS(t.backward(v), ad::ShapeError);
  CHECK_THROWS_AS(t.scalar(v), ad::ShapeError);
  CHECK_THROWS_AS(t.backward(ad::Var{}), std::out_of_range);
  CHECK_THROWS_AS(t.value(ad::Var{5}), std::out_of_range);
}

TEST_CASE("a node used twice receives both gradients") {
  ad::Tape t;
  const Matrix x = random_matrix(2, 3, 71);
  const ad::Var v = t.variable(x);
  const ad::Var c = t.constant(Matrix::Ones(2, 3));
  // y = Σ (x ⊙ x + x) + c  ->  dy/dx = 2x + 1; the constant gets no gradient.
  const ad::Var y = ad::sum(t, ad::add(t, ad::add(t, ad::mul(t, v, v), v), c));
  t.backward(y);
  const Matrix expected = (2 * x).array() + 1;
  CHECK(mismatch(t.grad(v), expected, 1e-15, 0) <= 1.0);
  CHECK(t.grad(c).size() == 0);
}

TEST_CASE("backward from an inner node ignores nodes created after it") {
  ad::Tape t;
  const ad::Var v = t.variable(Matrix::Constant(1, 1, 3.0));
  const ad::Var y = ad::scale(t, v, 2);
  ad::scale(t, y, 100);  // later node: not part of d y / d v
  t.backward(y);
  CHECK(t.grad(v)(0, 0) == 2.0);
}

TEST_CASE("a cleared tape reuses its storage and gives identical results") {
  ad::Parameter table("entities", 6, 4);
  table.value = random_matrix(6, 4, 72);
  const Matrix other = random_matrix(5, 4, 73);
  ad::Tape t(2);  // smaller than the graph: the node vector must grow
  auto run = [&](std::vector<const double*>* buffers) {
    t.clear();
    table.clear_grad();
    const ad::Var g = ad::gather(t, table, {0, 2, 2, 5, 1});
    const ad::Var o = t.variable(other);
    const ad::Var k = ad::rbf_kernel(t, g, o);
    const ad::Var loss = ad::binary_cross_entropy(t, ad::segment_max(t, k, ad::Index{5}), {1});
    t.backward(loss);
    if (buffers)
      for (std::size_t i = 0; i < t.size(); ++i)
        buffers->push_back(t.node(static_cast<int>(i)).value.data());
    return std::make_pair(t.scalar(loss), Matrix(table.grad));
  };
  std::vector<const double*> first_buffers, second_buffers;
  const auto first = run(&first_buffers);
  const auto second = run(&second_buffers);
  CHECK(first.first == second.first);
  CHECK(first.second == second.second);
  CHECK_FALSE(first.second.isZero(0));
  CHECK(first_buffers == second_buffers);  // same shapes, so no reallocation
}

TEST_CASE("Parameter gradients accumulate until cleared, row by row") {
  ad::Parameter p("p", 4, 2);
  CHECK(p.value.isZero(0));
  CHECK(p.grad.isZero(0));
  CHECK(p.is_touched.size() == 4);
  Matrix g(1, 2);
  g << 1, -2;
  p.accumulate_row(2, g);
  p.accumulate_row(2, g);
  p.accumulate_row(0, g);
  CHECK(p.touched == std::vector<ad::Index>{2, 0});
  CHECK(p.grad.row(2) == 2 * g);
  CHECK(p.grad.row(0) == g);
  CHECK_THROWS_AS(p.accumulate_row(4, g), std::out_of_range);
  CHECK_THROWS_AS(p.accumulate_row(1, Matrix::Zero(1, 3)), ad::ShapeError);

  p.grad(3, 1) = 7;  // not recorded as touched: clear_grad leaves it alone
  p.clear_grad();
  CHECK(p.touched.empty());
  CHECK(p.grad.row(0).isZero(0));
  CHECK(p.grad.row(2).isZero(0));
  CHECK(p.grad(3, 1) == 7);
  CHECK(p.is_touched == std::vector<uint8_t>{0, 0, 0, 0});

  // Two backward passes without clearing add up.
  ad::Tape t;
  ad::Parameter q("q", 3, 2);
  for (int pass = 0; pass < 2; ++pass) {
    t.clear();
    t.backward(ad::sum(t, ad::gather(t, q, {1})));
  }
  CHECK(q.grad.row(1) == Matrix::Constant(1, 2, 2.0));
  CHECK(q.touched == std::vector<ad::Index>{1});
}

TEST_CASE("the push overloads agree") {
  ad::Tape t;
  const ad::Var a = t.variable(Matrix::Ones(1, 1));
  const ad::Var b = t.constant(Matrix::Ones(1, 1));
  ad::Node& n = t.push("custom", std::vector<int>{b.id, a.id}, 2, 3, nullptr);
  CHECK(n.inputs == std::vector<int>{b.id, a.id});
  CHECK(n.needs_grad);
  CHECK(n.value.rows() == 2);
  CHECK(n.value.cols() == 3);
  CHECK_THROWS_AS(t.push("custom", {9}, 1, 1, nullptr), std::out_of_range);
}

TEST_CASE("gradients written by a previous graph never leak into the next") {
  // backward() re-zeroes only the rows it wrote last time; mix dense and
  // row-sparse writes into the same reused slots.
  ad::Tape t;
  const Matrix x = random_matrix(4, 3, 74);
  auto dense_pass = [&] {
    t.clear();
    const ad::Var v = t.variable(x);
    t.backward(ad::sum(t, ad::exp(t, v)));  // writes every row of v's gradient
    return v;
  };
  auto sparse_pass = [&](ad::Index row) {
    t.clear();
    const ad::Var v = t.variable(x);
    t.backward(ad::sum(t, ad::gather_rows(t, v, {row, row})));  // writes one row
    return v;
  };
  Matrix only_row_2 = Matrix::Zero(4, 3);
  only_row_2.row(2).setConstant(2);
  dense_pass();
  const ad::Var v = sparse_pass(2);
  CHECK(t.grad(v) == only_row_2);
  CHECK_FALSE(t.node(v).grad_dense);  // the bookkeeping saw one row, once
  CHECK(t.node(v).grad_rows == std::vector<ad::Index>{2});
  sparse_pass(1);
  CHECK(t.grad(sparse_pass(2)) == only_row_2);
  CHECK(t.grad(dense_pass()) == x.array().exp().matrix());
  // A slot whose shape changes is re-zeroed whole.
  t.clear();
  const ad::Var wide = t.variable(Matrix::Ones(2, 6));
  t.backward(ad::sum(t, ad::slice_cols(t, wide, 1, 2)));
  Matrix expected = Matrix::Zero(2, 6);
  expected.middleCols(1, 2).setOnes();
  CHECK(t.grad(wide) == expected);
}

TEST_CASE("the NTP scoring graph's Parameter gradient matches finite differences") {
  // 3 goals x k = 4 facts, one (8, 5) table for all three positions: gather
  // goal rows, repeat them k times, gather fact rows, kernel per position,
  // min over positions, max over facts, cross-entropy.
  const ad::Index k = 4;
  const std::vector<ad::Index> goal_rows[3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 0}};
  const std::vector<ad::Index> fact_rows[3] = {{1, 2, 3, 4, 5, 6, 7, 0, 1, 3, 5, 7},
                                               {0, 2, 4, 6, 1, 3, 5, 7, 2, 2, 6, 6},
                                               {7, 6, 5, 4, 3, 2, 1, 0, 4, 4, 4, 4}};
  const std::vector<ad::Index> repeat = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
  const std::vector<double> labels = {1, 0, 1};
  OpCase c;
  c.op = "ntp graph";
  c.parameter_input = 0;
  c.inputs = {random_matrix(8, 5, 75, -0.6, 0.6)};
  bool use_kernel_rows = false;
  SUBCASE("gather_rows + rbf_kernel") {}
  SUBCASE("rbf_kernel_rows") { use_kernel_rows = true; }
  c.build = [&](ad::Tape& t, const std::vector<ad::Var>&, ad::Parameter* table) {
    std::vector<ad::Var> kernels;
    for (int pos = 0; pos < 3; ++pos) {
      const ad::Var goal = ad::gather(t, *table, goal_rows[pos]);
      if (use_kernel_rows) {
        const ad::Var all = ad::gather(t, *table, {0, 1, 2, 3, 4, 5, 6, 7});
        kernels.push_back(ad::rbf_kernel_rows(t, goal, repeat, all, fact_rows[pos]));
      } else {
        kernels.push_back(ad::rbf_kernel(t, ad::gather_rows(t, goal, repeat),
                                         ad::gather(t, *table, fact_rows[pos])));
      }
    }
    return ad::binary_cross_entropy(t, ad::segment_max(t, ad::min(t, kernels), k), labels);
  };
  c.reference = [&](const Inputs& x) {
    const Matrix& e = x[0];
    double loss = 0;
    for (std::size_t b = 0; b < 3; ++b) {
      double best = 0;
      for (std::size_t j = 0; j < static_cast<std::size_t>(k); ++j) {
        double proof = 1;
        for (int pos = 0; pos < 3; ++pos) {
          const ad::Index g = goal_rows[pos][b], f = fact_rows[pos][b * 4 + j];
          double s = 0;
          for (ad::Index d = 0; d < 5; ++d) s += (e(g, d) - e(f, d)) * (e(g, d) - e(f, d));
          proof = std::min(proof, std::exp(-std::sqrt(s)));
        }
        best = std::max(best, proof);
      }
      loss -= labels[b] * std::log(best) + (1 - labels[b]) * std::log(1 - best);
    }
    Matrix out(1, 1);
    out(0, 0) = loss / 3;
    return out;
  };
  const std::vector<Matrix> grads = check_op(c);
  CHECK_FALSE(grads[0].isZero(0));
}
