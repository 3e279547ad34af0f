// tests/autodiff/gradcheck.h: the one shared checker for autodiff ops, plus
// seeded random inputs. For an op built from double inputs it checks
//   (1) the tape's forward value against a plain-double reference written
//       independently in the test,
//   (2) the tape's gradient against central finite differences of that
//       reference, for every input entry, with the output reduced to a scalar
//       by a fixed random weighting sum(w ⊙ out) so every output entry counts,
//   (3) that each listed set of badly shaped inputs throws ad::ShapeError
//       whose message names the op,
// and that a second backward, and the same graph rebuilt on the cleared tape,
// reproduce the gradients exactly (the tape re-zeroes only rows it wrote).
// Inputs must sit away from kinks (ties, clip boundaries): the callers'
// generators below keep values distinct and distances inside the clip range.
#pragma once

#include "autodiff/ops.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gradcheck {

using ad::Matrix;

// Uniform entries in [lo, hi).
inline Matrix random_matrix(ad::Index rows, ad::Index cols, unsigned seed, double lo = -1,
                            double hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Matrix m(rows, cols);
  for (ad::Index e = 0; e < m.size(); ++e) m.data()[e] = dist(rng);
  return m;
}

// `count` matrices of one shape whose entries are all distinct, any two at
// least 0.05 apart (far beyond the finite-difference step), in about [-1, 1].
inline std::vector<Matrix> distinct_matrices(std::size_t count, ad::Index rows, ad::Index cols,
                                             unsigned seed) {
  const auto total = static_cast<std::size_t>(rows * cols) * count;
  std::vector<double> values(total);
  std::iota(values.begin(), values.end(), 0.0);
  std::mt19937_64 rng(seed);
  std::shuffle(values.begin(), values.end(), rng);
  std::uniform_real_distribution<double> jitter(0, 0.04);
  std::vector<Matrix> out(count, Matrix(rows, cols));
  std::size_t next = 0;
  for (Matrix& m : out)
    for (ad::Index e = 0; e < m.size(); ++e)
      m.data()[e] = (values[next++] + jitter(rng)) * 2.0 / static_cast<double>(total) - 1.0;
  return out;
}

// Largest |a - b| / (atol + rtol·max(|a|, |b|)): <= 1 means "close".
inline double mismatch(const Matrix& a, const Matrix& b, double rtol, double atol) {
  double worst = 0;
  for (ad::Index e = 0; e < a.size(); ++e) {
    const double x = a.data()[e], y = b.data()[e];
    const double scale = std::max(std::abs(x), std::abs(y));
    worst = std::max(worst, std::abs(x - y) / (atol + rtol * scale));
  }
  return std::isnan(worst) ? 1e300 : worst;
}

inline std::string describe(const Matrix& m) {
  std::ostringstream out;
  out << ad::shape_of(m) << "\n" << m;
  return out.str();
}

using Inputs = std::vector<Matrix>;
// Builds the op on the tape. `vars[i]` holds inputs[i], except the input
// chosen as `parameter_input`, which lives in `table` (vars[i] is then invalid).
using Build = std::function<ad::Var(ad::Tape&, const std::vector<ad::Var>& vars,
                                    ad::Parameter* table)>;
using Reference = std::function<Matrix(const Inputs&)>;

struct OpCase {
  std::string op;                 // the name ShapeError messages must contain
  Inputs inputs;                  // random doubles, away from kinks
  Build build;
  Reference reference;            // the same function on plain doubles
  std::vector<Inputs> bad_shapes; // each must throw ShapeError from build
  int parameter_input = -1;       // this input is a Parameter table (gather)
  double eps = 1e-6;              // central-difference step
  double rtol = 1e-6;             // gradient tolerance, relative...
  double atol = 1e-8;             // ...plus absolute (entries that should be 0)
};

// Puts `inputs` on `tape` as variables (or into `table`) and builds the op.
inline ad::Var build_on(const OpCase& c, ad::Tape& tape, const Inputs& inputs,
                        ad::Parameter& table, std::vector<ad::Var>& vars) {
  vars.clear();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (static_cast<int>(i) == c.parameter_input) {
      table = ad::Parameter("table", inputs[i].rows(), inputs[i].cols());
      table.value = inputs[i];
      vars.push_back(ad::Var{});
    } else {
      vars.push_back(tape.variable(inputs[i]));
    }
  }
  return c.build(tape, vars, &table);
}

// Σ w ⊙ m on plain doubles.
inline double weighted_sum(const Matrix& w, const Matrix& m) {
  return w.cwiseProduct(m).sum();
}

// Runs checks (1)-(3) on one case; returns the gradients for further checks.
inline std::vector<Matrix> check_op(const OpCase& c) {
  INFO("op: ", c.op);
  ad::Tape tape;
  ad::Parameter table;
  std::vector<ad::Var> vars;
  const ad::Var out = build_on(c, tape, c.inputs, table, vars);

  // (1) forward value against the independent reference.
  const Matrix expected = c.reference(c.inputs);
  const Matrix& got = tape.value(out);
  REQUIRE_MESSAGE(got.rows() == expected.rows(), "shape ", ad::shape_of(got), " vs ",
                  ad::shape_of(expected));
  REQUIRE(got.cols() == expected.cols());
  CHECK_MESSAGE(mismatch(got, expected, 1e-12, 1e-14) <= 1.0, "forward value\n",
                describe(got), "\nexpected\n", describe(expected));

  // (2) analytic gradient of sum(w ⊙ out) against central differences.
  const Matrix w = random_matrix(got.rows(), got.cols(), 977, 0.5, 1.5);
  const ad::Var loss = ad::sum(tape, ad::mul(tape, out, tape.constant(w)));
  tape.backward(loss);
  CHECK(tape.scalar(loss) == doctest::Approx(weighted_sum(w, expected)).epsilon(1e-12));
  std::vector<Matrix> analytic;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (static_cast<int>(i) == c.parameter_input) {
      analytic.push_back(table.grad);
    } else {
      analytic.push_back(tape.grad(vars[i]));
    }
  }
  // The tape re-zeroes only the gradient rows it wrote: a second backward on
  // the same graph, and the same graph rebuilt on the cleared tape, must give
  // exactly the same gradients (nothing left over from the first pass).
  tape.backward(loss);
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    if (static_cast<int>(i) != c.parameter_input)
      CHECK_MESSAGE(tape.grad(vars[i]) == analytic[i], "input ", i, " after a second backward");
  tape.clear();
  const ad::Var again = build_on(c, tape, c.inputs, table, vars);
  tape.backward(ad::sum(tape, ad::mul(tape, again, tape.constant(w))));
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Matrix& g = static_cast<int>(i) == c.parameter_input ? table.grad : tape.grad(vars[i]);
    CHECK_MESSAGE(g == analytic[i], "input ", i, " on the cleared and rebuilt tape");
  }

  Inputs probe = c.inputs;
  for (std::size_t i = 0; i < probe.size(); ++i) {
    Matrix numeric(probe[i].rows(), probe[i].cols());
    for (ad::Index e = 0; e < probe[i].size(); ++e) {
      const double saved = probe[i].data()[e];
      probe[i].data()[e] = saved + c.eps;
      const double plus = weighted_sum(w, c.reference(probe));
      probe[i].data()[e] = saved - c.eps;
      const double minus = weighted_sum(w, c.reference(probe));
      probe[i].data()[e] = saved;
      numeric.data()[e] = (plus - minus) / (2 * c.eps);
    }
    CHECK_MESSAGE(mismatch(analytic[i], numeric, c.rtol, c.atol) <= 1.0, "input ", i,
                  ": analytic\n", describe(analytic[i]), "\nnumeric\n", describe(numeric));
  }

  // (3) bad shapes throw ShapeError naming the op.
  for (const Inputs& bad : c.bad_shapes) {
    ad::Tape bad_tape;
    ad::Parameter bad_table;
    std::vector<ad::Var> bad_vars;
    std::string message;
    try {
      build_on(c, bad_tape, bad, bad_table, bad_vars);
    } catch (const ad::ShapeError& e) {
      message = e.what();
    }
    std::string shapes;
    for (const Matrix& m : bad) shapes += ad::shape_of(m) + " ";
    CHECK_MESSAGE(message.find(c.op) != std::string::npos,
                  "no ShapeError naming the op for inputs ", shapes, "(got '", message, "')");
  }
  return analytic;
}

}  // namespace gradcheck
