// Gradient checks for log_sigmoid, binary_cross_entropy and the softmax
// cross-entropies (autodiff/ops_loss.cpp), including clipped probabilities.
#include "tests/autodiff/gradcheck.h"

using namespace gradcheck;
using ad::Matrix;

namespace {

const std::vector<double> kLabels = {1, 0, 1, 1, 0, 0};

Matrix bce_reference(const Matrix& p, const std::vector<double>& labels) {
  auto clip = [](double q) { return std::min(std::max(q, ad::kMinProbability), 1.0); };
  double total = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double q = p(static_cast<ad::Index>(i), 0);
    total -= labels[i] * std::log(clip(q)) + (1 - labels[i]) * std::log(clip(1 - q));
  }
  Matrix out(1, 1);
  out(0, 0) = total / static_cast<double>(labels.size());
  return out;
}

OpCase bce_case(Matrix p) {
  OpCase c;
  c.op = "binary_cross_entropy";
  c.inputs = {std::move(p)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::binary_cross_entropy(t, v[0], kLabels);
  };
  c.reference = [](const Inputs& x) { return bce_reference(x[0], kLabels); };
  c.bad_shapes = {{Matrix::Zero(5, 1)}, {Matrix::Zero(6, 2)}, {Matrix::Zero(1, 6)}};
  return c;
}

}  // namespace

TEST_CASE("log_sigmoid matches its reference and finite differences") {
  OpCase c;
  c.op = "log_sigmoid";
  c.inputs = {random_matrix(4, 3, 61, -6, 6)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::log_sigmoid(t, v[0]);
  };
  c.reference = [](const Inputs& x) {
    Matrix out(4, 3);
    for (ad::Index e = 0; e < out.size(); ++e)
      out.data()[e] = std::log(1 / (1 + std::exp(-x[0].data()[e])));
    return out;
  };
  check_op(c);
}

TEST_CASE("log_sigmoid is finite with the right slope at extreme inputs") {
  ad::Tape t;
  Matrix x(1, 2);
  x << -800, 800;
  const ad::Var v = t.variable(x);
  const ad::Var y = ad::log_sigmoid(t, v);
  CHECK(t.value(y)(0, 0) == doctest::Approx(-800));
  CHECK(t.value(y)(0, 1) == 0.0);
  t.backward(ad::sum(t, y));
  CHECK(t.grad(v)(0, 0) == doctest::Approx(1.0));
  CHECK(t.grad(v)(0, 1) == doctest::Approx(0.0));
}

TEST_CASE("binary_cross_entropy matches its reference and finite differences") {
  check_op(bce_case(random_matrix(6, 1, 62, 0.05, 0.95)));
}

TEST_CASE("binary_cross_entropy gives clipped probabilities no gradient") {
  Matrix p = random_matrix(6, 1, 63, 0.05, 0.95);
  p(0, 0) = -0.5;  // label 1: p and 1 - p are both clipped
  p(1, 0) = 1.5;   // label 0: likewise
  const std::vector<Matrix> grads = check_op(bce_case(p));
  CHECK(grads[0](0, 0) == 0.0);
  CHECK(grads[0](1, 0) == 0.0);
  CHECK(grads[0](2, 0) != 0.0);

  // p far below 1e-10 with label 1: the loss saturates at -log(1e-10) / n.
  ad::Tape t;
  Matrix tiny(1, 1);
  tiny(0, 0) = 1e-12;
  const ad::Var v = t.variable(tiny);
  const ad::Var loss = ad::binary_cross_entropy(t, v, {1.0});
  CHECK(t.scalar(loss) == doctest::Approx(-std::log(1e-10)));
  t.backward(loss);
  CHECK(t.grad(v)(0, 0) == 0.0);
}

TEST_CASE("binary_cross_entropy wants one label per probability") {
  ad::Tape t;
  const ad::Var p = t.constant(Matrix::Constant(3, 1, 0.5));
  CHECK_THROWS_AS(ad::binary_cross_entropy(t, p, {1, 0}), ad::ShapeError);
  CHECK_THROWS_AS(ad::binary_cross_entropy(t, t.constant(Matrix::Zero(0, 1)), {}),
                  ad::ShapeError);
}

namespace {

const std::vector<ad::Index> kTargets = {2, 0, 4};

// -1/n Σ_i log(e^x[i][t_i] / Σ_j e^x[i][j]), written directly.
Matrix softmax_ce_reference(const Matrix& x, const std::vector<ad::Index>& targets) {
  double total = 0;
  for (ad::Index i = 0; i < x.rows(); ++i) {
    double z = 0;
    for (ad::Index j = 0; j < x.cols(); ++j) z += std::exp(x(i, j));
    total -= std::log(std::exp(x(i, targets[static_cast<std::size_t>(i)])) / z);
  }
  Matrix out(1, 1);
  out(0, 0) = total / static_cast<double>(x.rows());
  return out;
}

}  // namespace

TEST_CASE("softmax_cross_entropy matches its reference and finite differences") {
  OpCase c;
  c.op = "softmax_cross_entropy";
  c.inputs = {random_matrix(3, 5, 64, -3, 3)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::softmax_cross_entropy(t, v[0], kTargets);
  };
  c.reference = [](const Inputs& x) { return softmax_ce_reference(x[0], kTargets); };
  c.bad_shapes = {{Matrix::Zero(2, 5)}, {Matrix::Zero(3, 0)}};
  check_op(c);
}

TEST_CASE("softmax_cross_entropy stays finite at large logits and checks its targets") {
  ad::Tape t;
  Matrix x(2, 3);
  x << 1000, -1000, 999,  //
      -800, -800, -800;
  const ad::Var v = t.variable(x);
  const ad::Var loss = ad::softmax_cross_entropy(t, v, {2, 1});
  // Row 0: -log(e^-1 / (1 + e^-1)) = log(1 + e); row 1: log 3.
  CHECK(t.scalar(loss) == doctest::Approx((std::log(1 + std::exp(1.0)) + std::log(3.0)) / 2));
  t.backward(loss);
  CHECK(t.grad(v).allFinite());
  CHECK(t.grad(v)(1, 1) == doctest::Approx((1.0 / 3 - 1) / 2));
  CHECK_THROWS_AS(ad::softmax_cross_entropy(t, v, {3, 0}), ad::ShapeError);
  CHECK_THROWS_AS(ad::softmax_cross_entropy(t, v, {-1, 0}), ad::ShapeError);
}

namespace {

// -1/G Σ_g log(p_g0 / Σ_j p_gj) over groups of 3 rows, written directly.
Matrix group_ce_reference(const Matrix& p) {
  double total = 0;
  const ad::Index groups = p.rows() / 3;
  for (ad::Index g = 0; g < groups; ++g) {
    const double sum = p(3 * g, 0) + p(3 * g + 1, 0) + p(3 * g + 2, 0);
    total -= std::log(p(3 * g, 0) / sum);
  }
  Matrix out(1, 1);
  out(0, 0) = total / static_cast<double>(groups);
  return out;
}

}  // namespace

TEST_CASE("group_cross_entropy matches its reference and finite differences") {
  OpCase c;
  c.op = "group_cross_entropy";
  c.inputs = {random_matrix(6, 1, 65, 0.05, 0.95)};
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::group_cross_entropy(t, v[0], 3);
  };
  c.reference = [](const Inputs& x) { return group_ce_reference(x[0]); };
  c.bad_shapes = {{Matrix::Zero(5, 1)}, {Matrix::Zero(6, 2)}, {Matrix::Zero(0, 1)}};
  check_op(c);
}

TEST_CASE("group_cross_entropy clips vanishing probabilities and gives them no gradient") {
  ad::Tape t;
  Matrix p(4, 1);
  p << 0.5, 0, 0.25, 1e-30;  // two groups of 2
  const ad::Var v = t.variable(p);
  const ad::Var loss = ad::group_cross_entropy(t, v, 2);
  // Group 0: -log(0.5 / (0.5 + 1e-10)); group 1: -log(0.25 / (0.25 + 1e-10)).
  const double expected = (std::log(1 + 2e-10) + std::log(1 + 4e-10)) / 2;
  CHECK(t.scalar(loss) == doctest::Approx(expected).epsilon(1e-12));
  t.backward(loss);
  CHECK(t.grad(v).allFinite());
  CHECK(t.grad(v)(1, 0) == 0);
  CHECK(t.grad(v)(3, 0) == 0);
  CHECK(t.grad(v)(0, 0) < 0);  // raising a positive lowers the loss
  CHECK_THROWS_AS(ad::group_cross_entropy(t, v, 3), ad::ShapeError);
  CHECK_THROWS_AS(ad::group_cross_entropy(t, v, 0), ad::ShapeError);
}
