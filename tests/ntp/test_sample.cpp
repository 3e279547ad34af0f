// tests/ntp/test_sample.cpp: a random sample of test triples and the spread of its metrics.
#include <doctest/doctest.h>

#include "ntp/eval/sample.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

TEST_CASE("sample_indices draws distinct indices, ascending, the same for a seed") {
  const std::vector<std::size_t> a = ntp::sample_indices(1000, 50, 7);
  REQUIRE(a.size() == 50);
  CHECK(std::is_sorted(a.begin(), a.end()));
  CHECK(std::adjacent_find(a.begin(), a.end()) == a.end());
  CHECK(a.back() < 1000);
  CHECK(ntp::sample_indices(1000, 50, 7) == a);
  CHECK(ntp::sample_indices(1000, 50, 8) != a);
  // Asking for as many as there are, or more, gives them all.
  CHECK(ntp::sample_indices(5, 5, 1) == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(ntp::sample_indices(3, 9, 1) == std::vector<std::size_t>{0, 1, 2});
  CHECK(ntp::sample_indices(0, 4, 1).empty());
}

TEST_CASE("sample_indices is uniform: each index drawn about count/population of the time") {
  // 20,000 draws of 3 of 10: each index expected 6,000 times (sd about 65).
  std::map<std::size_t, int> seen;
  for (std::uint64_t seed = 0; seed < 20000; ++seed)
    for (std::size_t i : ntp::sample_indices(10, 3, seed)) ++seen[i];
  REQUIRE(seen.size() == 10);
  for (const auto& drawn : seen) CHECK_MESSAGE(std::abs(drawn.second - 6000) < 400, drawn.first);
}

TEST_CASE("half_width_95: 1.96 sd / sqrt(n), corrected for drawing without replacement") {
  const std::vector<double> values = {0, 1, 0, 1};  // sample sd sqrt(1/3)
  const double plain = 1.96 * std::sqrt(1.0 / 3) / 2;
  CHECK(ntp::half_width_95(values, 1000000000) == doctest::Approx(plain).epsilon(1e-6));
  CHECK(ntp::half_width_95(values, 7) == doctest::Approx(plain * std::sqrt(3.0 / 6)));
  CHECK(ntp::half_width_95(values, 4) == 0);  // the whole population: nothing uncertain
  CHECK(ntp::half_width_95({0.5}, 10) == 0);
  CHECK(ntp::half_width_95({2, 2, 2}, 10) == 0);
  CHECK_THROWS_AS(ntp::half_width_95(values, 3), std::invalid_argument);
}

TEST_CASE("ranking_half_widths takes each triple's sides together") {
  // Triple 1 ranked 1 on both sides, triple 2 ranked 2 and 4: per-triple MRR
  // 1 and 0.375, HITS@1 1 and 0, HITS@3 1 and 0.5, HITS@10 1 and 1.
  const ntp::RankingMetrics half = ntp::ranking_half_widths({1, 1, 2, 4}, {1, 1, 2, 2}, 1000000);
  CHECK(half.count == 2);
  const auto expected = [](double a, double b) { return 1.96 * std::abs(a - b) / std::sqrt(2.0) / std::sqrt(2.0); };
  CHECK(half.mrr == doctest::Approx(expected(1, 0.375)).epsilon(1e-5));
  CHECK(half.hits1 == doctest::Approx(expected(1, 0)).epsilon(1e-5));
  CHECK(half.hits3 == doctest::Approx(expected(1, 0.5)).epsilon(1e-5));
  CHECK(half.hits10 == 0);
  CHECK_THROWS_AS(ntp::ranking_half_widths({1, 2}, {0}, 10), std::invalid_argument);
}
