// Gradient checks for the row and column movers (autodiff/ops_gather.cpp):
// gather from a Parameter (sparse row gradient, repeated rows), gather_rows,
// concat_cols, concat_rows and slice_cols.
#include "tests/autodiff/gradcheck.h"

#include <stdexcept>

using namespace gradcheck;
using ad::Matrix;

namespace {

Matrix pick_rows(const Matrix& x, const std::vector<ad::Index>& rows) {
  Matrix out(static_cast<ad::Index>(rows.size()), x.cols());
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (ad::Index c = 0; c < x.cols(); ++c) out(static_cast<ad::Index>(i), c) = x(rows[i], c);
  return out;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("gather from a Parameter scatters gradients into the gathered rows only") {
  const std::vector<ad::Index> rows = {1, 3, 1, 4};  // row 1 twice, rows 0 and 2 never
  OpCase c;
  c.op = "gather";
  c.parameter_input = 0;
  c.inputs = {random_matrix(5, 3, 31)};
  // exp makes the result depend non-linearly on the table.
  c.build = [rows](ad::Tape& t, const std::vector<ad::Var>&, ad::Parameter* table) {
    return ad::exp(t, ad::gather(t, *table, rows));
  };
  c.reference = [rows](const Inputs& x) {
    Matrix out = pick_rows(x[0], rows);
    for (ad::Index e = 0; e < out.size(); ++e) out.data()[e] = std::exp(out.data()[e]);
    return out;
  };
  const std::vector<Matrix> grads = check_op(c);
  CHECK(grads[0].row(0).isZero(0));
  CHECK(grads[0].row(2).isZero(0));
  CHECK_FALSE(grads[0].row(1).isZero(0));

  // The touched list names each gathered row exactly once.
  ad::Tape t;
  ad::Parameter table("entities", 5, 3);
  table.value = c.inputs[0];
  const ad::Var g = ad::gather(t, table, rows);
  CHECK(t.node(g).needs_grad);
  t.backward(ad::sum(t, g));
  std::vector<ad::Index> touched = table.touched;
  std::sort(touched.begin(), touched.end());
  CHECK(touched == std::vector<ad::Index>{1, 3, 4});
  CHECK(table.grad.row(1) == Matrix::Constant(1, 3, 2.0));  // gathered twice
  CHECK(table.grad.row(3) == Matrix::Ones(1, 3));
  CHECK(table.is_touched == std::vector<uint8_t>{0, 1, 0, 1, 1});
}

TEST_CASE("gather rejects rows outside the table, naming the op") {
  ad::Tape t;
  ad::Parameter table("entities", 5, 3);
  CHECK_THROWS_AS(ad::gather(t, table, {0, 5}), std::out_of_range);
  CHECK_THROWS_AS(ad::gather(t, table, {-1}), std::out_of_range);
  const std::string msg = message_of([&] { ad::gather(t, table, {7}); });
  CHECK(msg.find("gather") != std::string::npos);
  CHECK(msg.find("entities") != std::string::npos);
  CHECK(t.size() == 0);  // nothing half-built was left on the tape
}

TEST_CASE("gather_rows repeats rows and adds their gradients back") {
  const std::vector<ad::Index> rows = {2, 0, 2, 3, 3, 3};
  OpCase c;
  c.op = "gather_rows";
  c.inputs = {random_matrix(4, 3, 32)};
  c.build = [rows](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::gather_rows(t, v[0], rows);
  };
  c.reference = [rows](const Inputs& x) { return pick_rows(x[0], rows); };
  const std::vector<Matrix> grads = check_op(c);
  CHECK(grads[0].row(1).isZero(0));

  ad::Tape t;
  const ad::Var x = t.variable(Matrix::Zero(4, 3));
  CHECK_THROWS_AS(ad::gather_rows(t, x, {4}), std::out_of_range);
  CHECK(message_of([&] { ad::gather_rows(t, x, {-2}); }).find("gather_rows") !=
        std::string::npos);
}

TEST_CASE("concat_cols matches its reference and finite differences") {
  OpCase c;
  c.op = "concat_cols";
  c.inputs = {random_matrix(3, 2, 33), random_matrix(3, 1, 34), random_matrix(3, 4, 35)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::concat_cols(t, {v[0], v[1], v[2]});
  };
  c.reference = [](const Inputs& x) {
    Matrix out(3, 7);
    for (ad::Index r = 0; r < 3; ++r) {
      ad::Index col = 0;
      for (const Matrix& m : x)
        for (ad::Index k = 0; k < m.cols(); ++k) out(r, col++) = m(r, k);
    }
    return out;
  };
  c.bad_shapes = {{Matrix::Zero(3, 2), Matrix::Zero(2, 1), Matrix::Zero(3, 4)}};
  check_op(c);
  ad::Tape t;
  CHECK_THROWS_AS(ad::concat_cols(t, {}), ad::ShapeError);
}

TEST_CASE("concat_rows matches its reference and finite differences") {
  OpCase c;
  c.op = "concat_rows";
  c.inputs = {random_matrix(2, 3, 36), random_matrix(1, 3, 37), random_matrix(3, 3, 38)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::concat_rows(t, {v[0], v[1], v[2]});
  };
  c.reference = [](const Inputs& x) {
    Matrix out(6, 3);
    ad::Index row = 0;
    for (const Matrix& m : x)
      for (ad::Index r = 0; r < m.rows(); ++r, ++row)
        for (ad::Index k = 0; k < 3; ++k) out(row, k) = m(r, k);
    return out;
  };
  c.bad_shapes = {{Matrix::Zero(2, 3), Matrix::Zero(1, 3), Matrix::Zero(3, 2)}};
  check_op(c);
  ad::Tape t;
  CHECK_THROWS_AS(ad::concat_rows(t, {}), ad::ShapeError);
}

TEST_CASE("slice_cols matches its reference and finite differences") {
  OpCase c;
  c.op = "slice_cols";
  c.inputs = {random_matrix(3, 5, 39)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::slice_cols(t, v[0], 1, 3);
  };
  c.reference = [](const Inputs& x) {
    Matrix out(3, 3);
    for (ad::Index r = 0; r < 3; ++r)
      for (ad::Index k = 0; k < 3; ++k) out(r, k) = x[0](r, k + 1);
    return out;
  };
  c.bad_shapes = {{Matrix::Zero(3, 3)}};  // columns [1, 4) do not exist
  const std::vector<Matrix> grads = check_op(c);
  CHECK(grads[0].col(0).isZero(0));
  CHECK(grads[0].col(4).isZero(0));
  ad::Tape t;
  const ad::Var x = t.constant(Matrix::Zero(2, 4));
  CHECK_THROWS_AS(ad::slice_cols(t, x, -1, 2), ad::ShapeError);
  CHECK_THROWS_AS(ad::slice_cols(t, x, 0, -1), ad::ShapeError);
  CHECK(t.value(ad::slice_cols(t, x, 4, 0)).cols() == 0);
}
