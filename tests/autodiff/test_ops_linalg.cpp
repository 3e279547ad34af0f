// Gradient checks for matmul and softmax_rows (autodiff/ops_linalg.cpp).
#include "tests/autodiff/gradcheck.h"

using namespace gradcheck;
using ad::Matrix;

TEST_CASE("matmul matches its reference and finite differences") {
  OpCase c;
  c.op = "matmul";
  c.inputs = {random_matrix(3, 4, 51), random_matrix(4, 2, 52)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::matmul(t, v[0], v[1]);
  };
  c.reference = [](const Inputs& x) {
    Matrix out = Matrix::Zero(3, 2);
    for (ad::Index i = 0; i < 3; ++i)
      for (ad::Index j = 0; j < 2; ++j)
        for (ad::Index k = 0; k < 4; ++k) out(i, j) += x[0](i, k) * x[1](k, j);
    return out;
  };
  c.bad_shapes = {{Matrix::Zero(3, 4), Matrix::Zero(3, 2)}};
  check_op(c);
}

TEST_CASE("softmax_rows matches its reference and finite differences") {
  OpCase c;
  c.op = "softmax_rows";
  c.inputs = {random_matrix(3, 5, 53, -3, 3)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::softmax_rows(t, v[0]);
  };
  c.reference = [](const Inputs& x) {
    Matrix out(3, 5);
    for (ad::Index i = 0; i < 3; ++i) {
      double z = 0;
      for (ad::Index k = 0; k < 5; ++k) z += std::exp(x[0](i, k));
      for (ad::Index k = 0; k < 5; ++k) out(i, k) = std::exp(x[0](i, k)) / z;
    }
    return out;
  };
  c.bad_shapes = {{Matrix::Zero(3, 0)}};
  check_op(c);
}

TEST_CASE("softmax_rows stays finite for large inputs") {
  ad::Tape t;
  Matrix x(1, 3);
  x << 1000, 999, -1000;
  const Matrix& y = t.value(ad::softmax_rows(t, t.constant(x)));
  CHECK(y.allFinite());
  CHECK(y(0, 0) == doctest::Approx(1 / (1 + std::exp(-1.0))));
}

TEST_CASE("matmul_transposed matches its reference and finite differences") {
  OpCase c;
  c.op = "matmul_transposed";
  c.inputs = {random_matrix(3, 4, 54), random_matrix(5, 4, 55)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::matmul_transposed(t, v[0], v[1]);
  };
  c.reference = [](const Inputs& x) {
    Matrix out = Matrix::Zero(3, 5);
    for (ad::Index i = 0; i < 3; ++i)
      for (ad::Index j = 0; j < 5; ++j)
        for (ad::Index k = 0; k < 4; ++k) out(i, j) += x[0](i, k) * x[1](j, k);
    return out;
  };
  c.bad_shapes = {{Matrix::Zero(3, 4), Matrix::Zero(5, 3)}};
  check_op(c);
}
