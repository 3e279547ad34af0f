// Tests of the optimisers (autodiff/optim.cpp): exact SGD updates, L2 and
// clipping, AdaGrad and Adam's first steps, lazy per-row Adam state, and that
// rows the batch did not touch never move.
#include "autodiff/optim.h"

#include "tests/autodiff/gradcheck.h"

using namespace gradcheck;
using ad::Matrix;

namespace {

Matrix row(double a, double b) {
  Matrix m(1, 2);
  m << a, b;
  return m;
}

// A (3, 2) table with a gradient on row 1 only.
ad::Parameter table_with_grad(const Matrix& g) {
  ad::Parameter p("p", 3, 2);
  p.value = random_matrix(3, 2, 81);
  p.accumulate_row(1, g);
  return p;
}

}  // namespace

TEST_CASE("SGD subtracts lr * gradient from touched rows and clears the gradient") {
  ad::OptimizerOptions o;
  o.learning_rate = 0.1;
  ad::Parameter p = table_with_grad(row(0.5, -1.0));
  const Matrix before = p.value;
  ad::Sgd(o).step({&p});
  CHECK(p.value(1, 0) == doctest::Approx(before(1, 0) - 0.05).epsilon(1e-15));
  CHECK(p.value(1, 1) == doctest::Approx(before(1, 1) + 0.1).epsilon(1e-15));
  CHECK(p.value.row(0) == before.row(0));
  CHECK(p.value.row(2) == before.row(2));
  CHECK(p.touched.empty());
  CHECK(p.grad.isZero(0));
}

TEST_CASE("L2 is added before clipping, on touched rows only") {
  ad::OptimizerOptions o;
  o.learning_rate = 1.0;
  o.l2 = 0.5;
  ad::Parameter p = table_with_grad(row(0.25, -0.5));
  const Matrix before = p.value;
  SUBCASE("no clipping") {
    ad::Sgd(o).step({&p});
    const Matrix g = row(0.25, -0.5) + 0.5 * before.row(1);
    CHECK(p.value(1, 0) == doctest::Approx(before(1, 0) - g(0, 0)));
    CHECK(p.value(1, 1) == doctest::Approx(before(1, 1) - g(0, 1)));
  }
  SUBCASE("clipped at 0.1") {
    o.clip = 0.1;
    p.value.row(1) = row(0.2, 0.3);  // g = (0.35, -0.35): both clip
    ad::Sgd(o).step({&p});
    CHECK(p.value(1, 0) == doctest::Approx(0.1));
    CHECK(p.value(1, 1) == doctest::Approx(0.4));
  }
  CHECK(p.value.row(0) == before.row(0));
  CHECK(p.value.row(2) == before.row(2));
}

TEST_CASE("a parameter's own L2 coefficient replaces the optimiser's for that parameter only") {
  ad::OptimizerOptions o;
  o.learning_rate = 1.0;
  o.l2 = 0.5;
  ad::Parameter first = table_with_grad(row(0, 0)), second = table_with_grad(row(0, 0));
  const Matrix before = first.value;
  ad::Sgd sgd(o);
  sgd.set_l2(0, 0.25);
  sgd.step({&first, &second});
  CHECK(first.value.row(1).isApprox(0.75 * before.row(1), 1e-15));   // its own 0.25
  CHECK(second.value.row(1).isApprox(0.5 * before.row(1), 1e-15));   // the optimiser's 0.5
  CHECK(first.value.row(0) == before.row(0));                        // untouched rows: no L2
  CHECK_THROWS_AS(sgd.set_l2(1, -0.1), std::invalid_argument);
}

TEST_CASE("Adam and AdaGrad first steps move each entry by about lr") {
  ad::OptimizerOptions o;
  o.learning_rate = 0.01;
  for (const char* name : {"adam", "adagrad"}) {
    INFO(name);
    ad::Parameter p = table_with_grad(row(3.0, -0.002));
    const Matrix before = p.value;
    ad::make_optimizer(name, o)->step({&p});
    CHECK(p.value(1, 0) == doctest::Approx(before(1, 0) - 0.01).epsilon(1e-6));
    CHECK(p.value(1, 1) == doctest::Approx(before(1, 1) + 0.01).epsilon(1e-6));
    CHECK(p.value.row(0) == before.row(0));
    CHECK(p.value.row(2) == before.row(2));
    CHECK(p.touched.empty());
  }
}

TEST_CASE("Adam keeps lazy per-row moments and step counts") {
  ad::OptimizerOptions o;
  o.learning_rate = 0.1;
  ad::Adam adam(o);
  ad::Parameter p("p", 2, 1);
  auto touch = [&](ad::Index r, double g) {
    Matrix m(1, 1);
    m(0, 0) = g;
    p.accumulate_row(r, m);
  };
  touch(0, 1.0);
  adam.step({&p});  // row 0: step 1
  touch(0, -2.0);
  touch(1, 4.0);
  adam.step({&p});  // row 0: step 2; row 1: its first step
  const double m = 0.9 * 0.1 * 1.0 + 0.1 * -2.0;
  const double v = 0.999 * 0.001 * 1.0 + 0.001 * 4.0;
  const double m_hat = m / (1 - 0.9 * 0.9), v_hat = v / (1 - 0.999 * 0.999);
  const double row0 = -0.1 * (1.0 / (1.0 + 1e-8)) - 0.1 * m_hat / (std::sqrt(v_hat) + 1e-8);
  CHECK(p.value(0, 0) == doctest::Approx(row0).epsilon(1e-12));
  CHECK(p.value(1, 0) == doctest::Approx(-0.1).epsilon(1e-7));  // bias-corrected first step
}

TEST_CASE("AdaGrad accumulates squared gradients") {
  ad::OptimizerOptions o;
  o.learning_rate = 0.5;
  ad::AdaGrad adagrad(o);
  ad::Parameter p("p", 1, 1);
  Matrix g(1, 1);
  g(0, 0) = 3;
  p.accumulate_row(0, g);
  adagrad.step({&p});
  g(0, 0) = 4;
  p.accumulate_row(0, g);
  adagrad.step({&p});
  CHECK(p.value(0, 0) == doctest::Approx(-0.5 * 3 / (3 + 1e-8) - 0.5 * 4 / (5 + 1e-8)));
}

TEST_CASE("make_optimizer knows three names") {
  ad::OptimizerOptions o;
  CHECK(dynamic_cast<ad::Sgd*>(ad::make_optimizer("sgd", o).get()) != nullptr);
  CHECK(dynamic_cast<ad::AdaGrad*>(ad::make_optimizer("adagrad", o).get()) != nullptr);
  CHECK(dynamic_cast<ad::Adam*>(ad::make_optimizer("adam", o).get()) != nullptr);
  CHECK_THROWS_AS(ad::make_optimizer("rmsprop", o), std::invalid_argument);
}

TEST_CASE("an optimiser's state, moved into a new one and back, continues exactly") {
  for (const char* name : {"adam", "adagrad", "sgd"}) {
    CAPTURE(name);
    ad::OptimizerOptions o;
    o.learning_rate = 0.1;
    auto step = [](ad::Optimizer& opt, ad::Parameter& p, double g) {
      p.accumulate_row(1, ad::Matrix::Constant(1, 3, g));
      opt.step({&p});
    };
    ad::Parameter straight("p", 3, 3), resumed("p", 3, 3);
    auto a = ad::make_optimizer(name, o), b = ad::make_optimizer(name, o);
    for (double g : {0.5, -0.2}) {
      step(*a, straight, g);
      step(*b, resumed, g);
    }
    auto c = ad::make_optimizer(name, o);
    c->set_state(b->take_state());
    CHECK(b->take_state().empty());  // moved out: nothing left behind
    step(*a, straight, 0.3);
    step(*c, resumed, 0.3);
    b->set_state(c->take_state());  // and back, as a checkpoint written between epochs does
    step(*a, straight, 0.7);
    step(*b, resumed, 0.7);
    CHECK(straight.value == resumed.value);
  }
  CHECK_THROWS_AS(ad::make_optimizer("adam", {})->set_state({ad::Matrix(1, 1)}), std::invalid_argument);
}
