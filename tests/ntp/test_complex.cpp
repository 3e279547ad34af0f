// ComplEx scores of NTPλ: the value by hand, tape against plain, and the
// gradient against finite differences.
#include "autodiff/ops.h"
#include "ntp/model/complex.h"

#include "table_gradcheck.h"

#include <doctest/doctest.h>

#include <cmath>

namespace {

ntp::Model tiny_model(int dim) {
  ntp::KnowledgeBase kb;
  kb.predicates.intern("p");
  kb.predicates.intern("q");
  for (const char* c : {"a", "b", "c"}) kb.constants.intern(c);
  return ntp::make_model(kb, dim, ntp::ProverConfig{}, 23);
}

}  // namespace

TEST_CASE("ComplEx score of a 1-dimensional complex embedding, by hand") {
  ntp::Model m = tiny_model(2);
  m.predicates.value.row(0) << 0.5, -1.0;  // p = 0.5 - 1i
  m.constants.value.row(0) << 2.0, 1.0;    // a = 2 + 1i
  m.constants.value.row(1) << -1.0, 3.0;   // b = -1 + 3i
  // Re(p * a * conj(b)) = Re((0.5 - i)(2 + i)(-1 - 3i)) = Re((2 - 1.5i)(-1 - 3i)) = -2 - 4.5 = -6.5
  const auto scores = ntp::complex_scores(m, {{0, {0, 1}}});
  CHECK(scores[0] == doctest::Approx(1.0 / (1.0 + std::exp(6.5))));
}

TEST_CASE("ComplEx on the tape: same values, gradient matches finite differences") {
  ntp::Model m = tiny_model(6);
  const std::vector<ntp::Atom> atoms{{0, {0, 1}}, {1, {2, 2}}, {0, {1, 0}}, {1, {0, 2}}};
  const std::vector<double> labels{1, 0, 0, 1};
  const auto plain = ntp::complex_scores(m, atoms);
  ad::Tape tape;
  const ad::Var scores = ntp::complex_scores(tape, m, atoms);
  for (std::size_t i = 0; i < atoms.size(); ++i)
    CHECK(tape.value(scores)(static_cast<ad::Index>(i), 0) == doctest::Approx(plain[i]));
  tape.backward(ad::binary_cross_entropy(tape, scores, labels));
  check_table_gradients(m, [&]() {
    ad::Tape t;
    return t.scalar(ad::binary_cross_entropy(t, ntp::complex_scores(t, m, atoms), labels));
  });
  CHECK_THROWS_AS(ntp::complex_scores(tiny_model(5), atoms), std::invalid_argument);
}
