// Gradient checks for the element-wise ops (autodiff/ops_elementwise.cpp),
// including how min and max break ties.
#include "tests/autodiff/gradcheck.h"

using namespace gradcheck;
using ad::Matrix;

namespace {

// out[e] = f(x0[e], x1[e], ...) on plain doubles.
template <class F>
Matrix map(const Inputs& x, F f) {
  Matrix out(x[0].rows(), x[0].cols());
  for (ad::Index e = 0; e < out.size(); ++e) {
    std::vector<double> args;
    for (const Matrix& m : x) args.push_back(m.data()[e]);
    out.data()[e] = f(args);
  }
  return out;
}

const std::vector<Inputs> kMismatched = {{Matrix::Zero(3, 4), Matrix::Zero(3, 5)},
                                         {Matrix::Zero(3, 4), Matrix::Zero(2, 4)}};

}  // namespace

TEST_CASE("add, sub and mul match their references and finite differences") {
  OpCase c;
  c.inputs = {random_matrix(3, 4, 1), random_matrix(3, 4, 2)};
  c.bad_shapes = kMismatched;
  SUBCASE("add") {
    c.op = "add";
    c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::add(t, v[0], v[1]);
    };
    c.reference = [](const Inputs& x) { return map(x, [](auto a) { return a[0] + a[1]; }); };
  }
  SUBCASE("sub") {
    c.op = "sub";
    c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::sub(t, v[0], v[1]);
    };
    c.reference = [](const Inputs& x) { return map(x, [](auto a) { return a[0] - a[1]; }); };
  }
  SUBCASE("mul") {
    c.op = "mul";
    c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::mul(t, v[0], v[1]);
    };
    c.reference = [](const Inputs& x) { return map(x, [](auto a) { return a[0] * a[1]; }); };
  }
  check_op(c);
}

TEST_CASE("scale and exp match their references and finite differences") {
  OpCase c;
  c.inputs = {random_matrix(4, 3, 3, -2, 2)};
  SUBCASE("scale") {
    c.op = "scale";
    c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::scale(t, v[0], -2.5);
    };
    c.reference = [](const Inputs& x) { return map(x, [](auto a) { return -2.5 * a[0]; }); };
  }
  SUBCASE("exp") {
    c.op = "exp";
    c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::exp(t, v[0]);
    };
    c.reference = [](const Inputs& x) { return map(x, [](auto a) { return std::exp(a[0]); }); };
  }
  check_op(c);
}

TEST_CASE("min of three inputs matches its reference and finite differences") {
  OpCase c;
  c.op = "min";
  c.inputs = distinct_matrices(3, 4, 5, 11);
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::min(t, {v[0], v[1], v[2]});
  };
  c.reference = [](const Inputs& x) {
    return map(x, [](auto a) { return std::min({a[0], a[1], a[2]}); });
  };
  c.bad_shapes = {{Matrix::Zero(4, 5), Matrix::Zero(4, 5), Matrix::Zero(4, 4)},
                  {Matrix::Zero(4, 5), Matrix::Zero(5, 5), Matrix::Zero(4, 5)}};
  check_op(c);

  ad::Tape t;
  CHECK_THROWS_AS(ad::min(t, {}), ad::ShapeError);
}

TEST_CASE("min of a single input is the identity") {
  ad::Tape t;
  const Matrix x = random_matrix(2, 3, 4);
  const ad::Var v = t.variable(x);
  const ad::Var y = ad::min(t, {v});
  CHECK(t.value(y) == x);
  t.backward(ad::sum(t, y));
  CHECK(t.grad(v) == Matrix::Ones(2, 3));
}

TEST_CASE("min sends a tied gradient to the first input holding the minimum") {
  ad::Tape t;
  Matrix a(1, 4), b(1, 4), c(1, 4);
  a << 1, 5, 2, 7;
  b << 1, 3, 2, 3;
  c << 0, 3, 2, 9;
  const ad::Var va = t.variable(a), vb = t.variable(b), vc = t.variable(c);
  const ad::Var y = ad::min(t, {va, vb, vc});
  Matrix expected(1, 4);
  expected << 0, 3, 2, 3;
  CHECK(t.value(y) == expected);
  t.backward(ad::sum(t, y));
  Matrix ga(1, 4), gb(1, 4), gc(1, 4);
  ga << 0, 0, 1, 0;  // three-way tie at entry 2: the first input wins
  gb << 0, 1, 0, 1;  // b and c tie at entry 1: b is first
  gc << 1, 0, 0, 0;
  CHECK(t.grad(va) == ga);
  CHECK(t.grad(vb) == gb);
  CHECK(t.grad(vc) == gc);
}

TEST_CASE("max matches its reference and finite differences") {
  OpCase c;
  c.op = "max";
  c.inputs = distinct_matrices(2, 3, 4, 12);
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::max(t, v[0], v[1]);
  };
  c.reference = [](const Inputs& x) { return map(x, [](auto a) { return std::max(a[0], a[1]); }); };
  c.bad_shapes = kMismatched;
  check_op(c);
}

TEST_CASE("max sends a tied gradient to its first argument") {
  ad::Tape t;
  Matrix a(1, 3), b(1, 3);
  a << 2, 1, 4;
  b << 2, 3, 0;
  const ad::Var va = t.variable(a), vb = t.variable(b);
  t.backward(ad::sum(t, ad::max(t, va, vb)));
  Matrix ga(1, 3), gb(1, 3);
  ga << 1, 0, 1;
  gb << 0, 1, 0;
  CHECK(t.grad(va) == ga);
  CHECK(t.grad(vb) == gb);
}
