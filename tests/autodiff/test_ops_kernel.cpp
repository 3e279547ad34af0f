// Gradient checks for l2_norm_rows and rbf_kernel (autodiff/ops_kernel.cpp),
// inside and outside the clip range of the squared distance.
#include "tests/autodiff/gradcheck.h"

using namespace gradcheck;
using ad::Matrix;

namespace {

double clip_squared(double s) {
  return std::min(std::max(s, ad::kMinSquaredDistance), ad::kMaxSquaredDistance);
}

Matrix norm_reference(const Matrix& x) {
  Matrix out(x.rows(), 1);
  for (ad::Index r = 0; r < x.rows(); ++r) {
    double s = 0;
    for (ad::Index k = 0; k < x.cols(); ++k) s += x(r, k) * x(r, k);
    out(r, 0) = std::sqrt(clip_squared(s));
  }
  return out;
}

Matrix rbf_reference(const Matrix& x, const Matrix& y) {
  Matrix out(x.rows(), 1);
  for (ad::Index r = 0; r < x.rows(); ++r) {
    double s = 0;
    for (ad::Index k = 0; k < x.cols(); ++k) s += (x(r, k) - y(r, k)) * (x(r, k) - y(r, k));
    out(r, 0) = std::exp(-std::sqrt(clip_squared(s)));
  }
  return out;
}

OpCase norm_case(Matrix x) {
  OpCase c;
  c.op = "l2_norm_rows";
  c.inputs = {std::move(x)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::l2_norm_rows(t, v[0]);
  };
  c.reference = [](const Inputs& in) { return norm_reference(in[0]); };
  return c;
}

OpCase rbf_case(Matrix x, Matrix y) {
  OpCase c;
  c.op = "rbf_kernel";
  c.inputs = {std::move(x), std::move(y)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::rbf_kernel(t, v[0], v[1]);
  };
  c.reference = [](const Inputs& in) { return rbf_reference(in[0], in[1]); };
  c.bad_shapes = {{Matrix::Zero(5, 4), Matrix::Zero(5, 3)},
                  {Matrix::Zero(5, 4), Matrix::Zero(4, 4)}};
  return c;
}

}  // namespace

TEST_CASE("l2_norm_rows matches its reference and finite differences") {
  check_op(norm_case(random_matrix(6, 4, 41)));
}

TEST_CASE("l2_norm_rows gives clipped rows no gradient") {
  Matrix x = random_matrix(3, 3, 42);
  x.row(0).setConstant(1e-5);  // ‖x‖² = 3e-10 < 1e-6
  x.row(2).setConstant(20);    // ‖x‖² = 1200 > 1e3
  const std::vector<Matrix> grads = check_op(norm_case(x));
  CHECK(grads[0].row(0).isZero(0));
  CHECK(grads[0].row(2).isZero(0));
  CHECK_FALSE(grads[0].row(1).isZero(0));
  ad::Tape t;
  const Matrix& y = t.value(ad::l2_norm_rows(t, t.constant(x)));
  CHECK(y(0, 0) == doctest::Approx(1e-3).epsilon(1e-12));
  CHECK(y(2, 0) == doctest::Approx(std::sqrt(1e3)).epsilon(1e-12));
}

TEST_CASE("rbf_kernel matches its reference and finite differences") {
  check_op(rbf_case(random_matrix(5, 4, 43), random_matrix(5, 4, 44)));
}

TEST_CASE("rbf_kernel gives clipped rows no gradient") {
  Matrix x = random_matrix(3, 4, 45), y = random_matrix(3, 4, 46);
  y.row(0) = x.row(0).array() + 1e-5;  // nearly equal: ‖x - y‖² = 4e-10
  y.row(2) = x.row(2).array() + 30;    // far apart: ‖x - y‖² = 3600
  const std::vector<Matrix> grads = check_op(rbf_case(x, y));
  for (const Matrix& g : grads) {
    CHECK(g.row(0).isZero(0));
    CHECK(g.row(2).isZero(0));
    CHECK_FALSE(g.row(1).isZero(0));
  }
}

TEST_CASE("rbf_kernel equals the composed diff, norm and exp") {
  ad::Tape t;
  const ad::Var x = t.variable(random_matrix(7, 5, 47));
  const ad::Var y = t.variable(random_matrix(7, 5, 48));
  const ad::Var w = t.constant(random_matrix(7, 1, 49));
  const ad::Var fused = ad::rbf_kernel(t, x, y);
  const ad::Var composed = ad::exp(t, ad::scale(t, ad::l2_norm_rows(t, ad::sub(t, x, y)), -1));
  CHECK(mismatch(t.value(fused), t.value(composed), 1e-14, 0) <= 1.0);
  t.backward(ad::sum(t, ad::mul(t, ad::sub(t, fused, composed), w)));
  // d(fused - composed) = 0, so the two gradient paths must cancel.
  CHECK(t.grad(x).cwiseAbs().maxCoeff() < 1e-14);
  CHECK(t.grad(y).cwiseAbs().maxCoeff() < 1e-14);
}

TEST_CASE("rbf_kernel_rows matches its reference and finite differences") {
  const std::vector<ad::Index> x_rows = {0, 0, 0, 2, 2, 2, 1};  // goals repeated
  const std::vector<ad::Index> y_rows = {3, 1, 3, 0, 4, 2, 2};  // facts, some twice
  OpCase c;
  c.op = "rbf_kernel_rows";
  Matrix y = random_matrix(5, 4, 51);
  y.row(4) = random_matrix(3, 4, 50).row(2).array() + 1e-5;  // pair (2, 4) is clipped
  c.inputs = {random_matrix(3, 4, 50), y};
  c.build = [=](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::rbf_kernel_rows(t, v[0], x_rows, v[1], y_rows);
  };
  c.reference = [=](const Inputs& in) {
    Matrix a(7, 4), b(7, 4);
    for (std::size_t i = 0; i < 7; ++i) {
      a.row(static_cast<ad::Index>(i)) = in[0].row(x_rows[i]);
      b.row(static_cast<ad::Index>(i)) = in[1].row(y_rows[i]);
    }
    return rbf_reference(a, b);
  };
  c.bad_shapes = {{Matrix::Zero(3, 4), Matrix::Zero(5, 3)}};
  const std::vector<Matrix> grads = check_op(c);
  CHECK(grads[1].row(4).isZero(0));  // only used in the clipped pair

  ad::Tape t;
  const ad::Var a = t.variable(Matrix::Zero(2, 3)), b = t.variable(Matrix::Zero(4, 3));
  CHECK_THROWS_AS(ad::rbf_kernel_rows(t, a, {0, 1}, b, {0}), ad::ShapeError);
  CHECK_THROWS_AS(ad::rbf_kernel_rows(t, a, {2}, b, {0}), std::out_of_range);
  CHECK_THROWS_AS(ad::rbf_kernel_rows(t, a, {0}, b, {4}), std::out_of_range);
}

TEST_CASE("rbf_of_squared_distance is the value rbf_kernel computes, to the bit, clipped or not") {
  // The prover's plain-double scores and the rules' confidence call the
  // scalar function; training computes the op. They must agree exactly.
  Matrix x = random_matrix(6, 3, 53);
  Matrix y = random_matrix(6, 3, 54);
  y.row(0) = x.row(0);                    // distance 0: clipped below
  y.row(1) = x.row(1).array() + 1e-5;     // tiny: clipped below
  y.row(2) = x.row(2).array() + 40.0;     // far: clipped above
  ad::Tape t;
  const ad::Var k = ad::rbf_kernel(t, t.constant(x), t.constant(y));
  for (ad::Index r = 0; r < x.rows(); ++r) {
    CAPTURE(r);
    CHECK(t.value(k)(r, 0) == ad::rbf_of_squared_distance((x.row(r) - y.row(r)).squaredNorm()));
  }
  CHECK(ad::rbf_of_squared_distance(0) == std::exp(-std::sqrt(ad::kMinSquaredDistance)));
  CHECK(ad::rbf_of_squared_distance(1e9) == std::exp(-std::sqrt(ad::kMaxSquaredDistance)));
}
