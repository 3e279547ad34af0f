// Gradient checks for the reductions (autodiff/ops_reduce.cpp): sum, mean and
// both forms of segment_max, with its tie rule and segment-size errors,
// segment_soft_max, and segment_mean.
#include "tests/autodiff/gradcheck.h"

using namespace gradcheck;
using ad::Matrix;

namespace {

Matrix scalar_matrix(double v) {
  Matrix m(1, 1);
  m(0, 0) = v;
  return m;
}

// Max over consecutive segments of a column, on plain doubles.
Matrix segment_max_reference(const Matrix& x, const std::vector<ad::Index>& sizes) {
  Matrix out(static_cast<ad::Index>(sizes.size()), 1);
  ad::Index row = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    double best = -INFINITY;
    for (ad::Index r = 0; r < sizes[s]; ++r) best = std::max(best, x(row++, 0));
    out(static_cast<ad::Index>(s), 0) = best;
  }
  return out;
}

}  // namespace

TEST_CASE("sum and mean match their references and finite differences") {
  OpCase c;
  c.inputs = {random_matrix(3, 5, 21)};
  SUBCASE("sum") {
    c.op = "sum";
    c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::sum(t, v[0]);
    };
    c.reference = [](const Inputs& x) {
      double total = 0;
      for (ad::Index e = 0; e < x[0].size(); ++e) total += x[0].data()[e];
      return scalar_matrix(total);
    };
  }
  SUBCASE("mean") {
    c.op = "mean";
    c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::mean(t, v[0]);
    };
    c.reference = [](const Inputs& x) {
      double total = 0;
      for (ad::Index e = 0; e < x[0].size(); ++e) total += x[0].data()[e];
      return scalar_matrix(total / 15.0);
    };
    c.bad_shapes = {{Matrix::Zero(0, 3)}};
  }
  check_op(c);
}

TEST_CASE("segment_max with explicit sizes matches its reference and finite differences") {
  const std::vector<ad::Index> sizes = {2, 1, 4, 3};
  OpCase c;
  c.op = "segment_max";
  c.inputs = distinct_matrices(1, 10, 1, 22);
  c.build = [sizes](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::segment_max(t, v[0], sizes);
  };
  c.reference = [sizes](const Inputs& x) { return segment_max_reference(x[0], sizes); };
  c.bad_shapes = {{Matrix::Zero(10, 2)}, {Matrix::Zero(9, 1)}, {Matrix::Zero(11, 1)}};
  check_op(c);

  ad::Tape t;
  const ad::Var x = t.constant(Matrix::Zero(3, 1));
  CHECK_THROWS_AS(ad::segment_max(t, x, std::vector<ad::Index>{3, 0}), ad::ShapeError);
  CHECK_THROWS_AS(ad::segment_max(t, x, std::vector<ad::Index>{4, -1}), ad::ShapeError);
}

TEST_CASE("segment_max with a fixed size matches its reference and finite differences") {
  OpCase c;
  c.op = "segment_max";
  c.inputs = distinct_matrices(1, 12, 1, 23);
  c.build = [](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::segment_max(t, v[0], ad::Index{3});
  };
  c.reference = [](const Inputs& x) { return segment_max_reference(x[0], {3, 3, 3, 3}); };
  c.bad_shapes = {{Matrix::Zero(12, 3)}, {Matrix::Zero(10, 1)}};
  check_op(c);

  ad::Tape t;
  const ad::Var x = t.constant(Matrix::Zero(4, 1));
  CHECK_THROWS_AS(ad::segment_max(t, x, ad::Index{0}), ad::ShapeError);
}

TEST_CASE("segment_max sends a tied gradient to the first arg-max of the segment") {
  ad::Tape t;
  Matrix x(6, 1);
  x << 1, 4, 4, 7, 7, 7;
  const ad::Var v = t.variable(x);
  SUBCASE("fixed size") { t.backward(ad::sum(t, ad::segment_max(t, v, ad::Index{3}))); }
  SUBCASE("explicit sizes") {
    t.backward(ad::sum(t, ad::segment_max(t, v, std::vector<ad::Index>{3, 3})));
  }
  Matrix expected(6, 1);
  expected << 0, 1, 0, 1, 0, 0;
  CHECK(t.grad(v) == expected);
}

TEST_CASE("segment_soft_max matches its reference and finite differences, and tends to the max") {
  const std::vector<ad::Index> sizes = {2, 1, 4, 3};
  for (const double temperature : {0.3, 2.0}) {
    CAPTURE(temperature);
    OpCase c;
    c.op = "segment_soft_max";
    c.inputs = {random_matrix(10, 1, 23)};
    c.build = [sizes, temperature](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
      return ad::segment_soft_max(t, v[0], sizes, temperature);
    };
    c.reference = [sizes, temperature](const Inputs& x) {  // Σ x e^(x/τ) / Σ e^(x/τ), written directly
      Matrix out(static_cast<ad::Index>(sizes.size()), 1);
      ad::Index row = 0;
      for (std::size_t s = 0; s < sizes.size(); ++s) {
        double num = 0, den = 0;
        for (ad::Index r = 0; r < sizes[s]; ++r, ++row) {
          num += x[0](row, 0) * std::exp(x[0](row, 0) / temperature);
          den += std::exp(x[0](row, 0) / temperature);
        }
        out(static_cast<ad::Index>(s), 0) = num / den;
      }
      return out;
    };
    c.bad_shapes = {{Matrix::Zero(10, 2)}, {Matrix::Zero(9, 1)}};
    check_op(c);
  }
  ad::Tape t;
  const Matrix x = random_matrix(10, 1, 24);
  const ad::Var v = t.constant(x);
  const Matrix cold = t.value(ad::segment_soft_max(t, v, sizes, 1e-4));
  CHECK(cold.isApprox(segment_max_reference(x, sizes)));
  CHECK_THROWS_AS(ad::segment_soft_max(t, v, sizes, 0.0), ad::ShapeError);
  CHECK_THROWS_AS(ad::segment_soft_max(t, v, std::vector<ad::Index>{10, 0}, 1.0), ad::ShapeError);
}

TEST_CASE("segment_mean matches its reference and finite differences") {
  const std::vector<ad::Index> sizes = {2, 1, 4};
  OpCase c;
  c.op = "segment_mean";
  c.inputs = {random_matrix(7, 3, 25)};
  c.build = [sizes](ad::Tape& t, const std::vector<ad::Var>& v, ad::Parameter*) {
    return ad::segment_mean(t, v[0], sizes);
  };
  c.reference = [sizes](const Inputs& x) {  // each segment's rows added, then divided by its size
    Matrix out = Matrix::Zero(static_cast<ad::Index>(sizes.size()), x[0].cols());
    ad::Index row = 0;
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      for (ad::Index r = 0; r < sizes[s]; ++r) out.row(static_cast<ad::Index>(s)) += x[0].row(row++);
      out.row(static_cast<ad::Index>(s)) /= static_cast<double>(sizes[s]);
    }
    return out;
  };
  c.bad_shapes = {{Matrix::Zero(6, 3)}, {Matrix::Zero(8, 3)}};
  check_op(c);
  ad::Tape t;
  const ad::Var v = t.constant(random_matrix(7, 3, 26));
  CHECK_THROWS_AS(ad::segment_mean(t, v, std::vector<ad::Index>{7, 0}), ad::ShapeError);
}
