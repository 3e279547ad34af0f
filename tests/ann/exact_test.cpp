// tests/ann/exact_test.cpp: BruteForce and KdTree against a naive double-
// precision loop, the shared argument checks, and make_index.
#include "ann/brute_force.h"
#include "ann/kd_tree.h"
#include "ann/synthetic.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

using ann::RowMatrix;

double naive_distance(const RowMatrix& a, int i, const RowMatrix& b, int j) {
  double s = 0;
  for (Eigen::Index c = 0; c < a.cols(); ++c) {
    const double t = static_cast<double>(a(i, c)) - b(j, c);
    s += t * t;
  }
  return s;
}

// Checks `found` against every distance computed naively: position j of each
// query must hold an id whose true distance equals the true j-th smallest
// (so equal distances may come in any order), with no id repeated.
void check_exact(const ann::Neighbours& found, const RowMatrix& points, const RowMatrix& queries,
                 int k) {
  const int n = static_cast<int>(points.rows());
  REQUIRE(found.k == std::min(k, n));
  REQUIRE(found.ids.size() == static_cast<size_t>(queries.rows()) * found.k);
  REQUIRE(found.distances.size() == found.ids.size());
  std::vector<double> all(static_cast<size_t>(n));
  for (int q = 0; q < queries.rows(); ++q) {
    for (int i = 0; i < n; ++i) all[i] = naive_distance(queries, q, points, i);
    std::vector<double> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> ids(found.ids.begin() + q * found.k, found.ids.begin() + (q + 1) * found.k);
    for (int j = 0; j < found.k; ++j) {
      const int id = ids[j];
      REQUIRE(id >= 0);
      REQUIRE(id < n);
      const double tol = 1e-4 * (1.0 + sorted[j]);
      CHECK(std::abs(all[id] - sorted[j]) <= tol);
      CHECK(std::abs(found.distances[q * found.k + j] - sorted[j]) <= tol);
    }
    std::sort(ids.begin(), ids.end());
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
  }
}

template <class IndexT>
void check_against_naive() {
  const int sizes[] = {1, 2, 17, 1000, 2500};
  const int dims[] = {1, 2, 3, 7, 16, 33, 64, 200};
  uint64_t seed = 1;
  for (int n : sizes) {
    for (int d : dims) {
      CAPTURE(n);
      CAPTURE(d);
      const RowMatrix points = ann::synthetic_gaussian(n, d, seed++);
      const RowMatrix queries = ann::synthetic_gaussian(n >= 1000 ? 40 : 7, d, seed++);
      IndexT index;
      index.build(points);
      CHECK(index.size() == n);
      CHECK(index.dim() == d);
      for (int k : {1, 10}) check_exact(index.search(queries, k), points, queries, k);
    }
  }
}

template <class IndexT>
void check_duplicates() {
  // Every point three times; queries at the points themselves.
  const RowMatrix base = ann::synthetic_uniform(300, 5, 7);
  RowMatrix points(900, 5);
  for (int i = 0; i < 900; ++i) points.row(i) = base.row(i % 300);
  IndexT index;
  index.build(points);
  const RowMatrix queries = base.topRows(20);
  const ann::Neighbours found = index.search(queries, 4);
  check_exact(found, points, queries, 4);
  for (int q = 0; q < 20; ++q) {
    for (int j = 0; j < 3; ++j) {
      CHECK(found.distances[q * 4 + j] == 0.0f);
      CHECK(found.ids[q * 4 + j] % 300 == q);
    }
  }
}

template <class IndexT>
void check_errors() {
  IndexT index;
  const RowMatrix queries = ann::synthetic_gaussian(3, 4, 1);
  CHECK_THROWS_WITH_AS(index.search(queries, 1), doctest::Contains("empty"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.build(RowMatrix(0, 4)), doctest::Contains("empty"),
                       std::invalid_argument);
  RowMatrix bad = ann::synthetic_gaussian(10, 4, 2);
  bad(3, 2) = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH_AS(index.build(bad), doctest::Contains("row 3, column 2"),
                       std::invalid_argument);
  bad(3, 2) = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(index.build(bad), std::invalid_argument);

  const RowMatrix points = ann::synthetic_gaussian(10, 4, 3);
  index.build(points);
  CHECK_THROWS_WITH_AS(index.search(queries, 0), doctest::Contains("k must be >= 1"),
                       std::invalid_argument);
  CHECK_THROWS_AS(index.search(queries, -3), std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.search(ann::synthetic_gaussian(2, 5, 4), 1),
                       doctest::Contains("4-dimensional"), std::invalid_argument);
  RowMatrix bad_query = queries;
  bad_query(1, 0) = -std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH_AS(index.search(bad_query, 1), doctest::Contains("query row 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.update({10}, RowMatrix::Zero(1, 4)), doctest::Contains("outside"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.update({1, 1}, RowMatrix::Zero(2, 4)),
                       doctest::Contains("more than once"), std::invalid_argument);
  CHECK_THROWS_AS(index.update({1}, RowMatrix::Zero(1, 3)), std::invalid_argument);

  // k > n returns all n points.
  const ann::Neighbours all = index.search(queries, 25);
  CHECK(all.k == 10);
  check_exact(all, points, queries, 25);
}

template <class IndexT>
void check_update() {
  RowMatrix points = ann::synthetic_gaussian(500, 6, 11);
  IndexT index;
  index.build(points);
  const std::vector<int> ids = {3, 499, 0, 250};
  const RowMatrix moved = ann::synthetic_gaussian(4, 6, 12);
  index.update(ids, moved);
  for (size_t i = 0; i < ids.size(); ++i) points.row(ids[i]) = moved.row(i);
  CHECK(index.points() == points);
  const RowMatrix queries = ann::synthetic_gaussian(30, 6, 13);
  check_exact(index.search(queries, 5), points, queries, 5);
}

}  // namespace

TEST_CASE("BruteForce agrees with a naive loop") {
  SUBCASE("random data, n in 1..2500, d in 1..200") { check_against_naive<ann::BruteForce>(); }
  SUBCASE("duplicate points") { check_duplicates<ann::BruteForce>(); }
  SUBCASE("errors and k > n") { check_errors<ann::BruteForce>(); }
  SUBCASE("update") { check_update<ann::BruteForce>(); }
  SUBCASE("many queries, several blocks and tiles") {
    const RowMatrix points = ann::synthetic_mixture(5000, 24, 50, 21);
    const RowMatrix queries = ann::synthetic_mixture(300, 24, 50, 22);
    ann::BruteForce index;
    index.build(points);
    check_exact(index.search(queries, 10), points, queries, 10);
  }
}

TEST_CASE("KdTree agrees with a naive loop") {
  SUBCASE("random data, n in 1..2500, d in 1..200") { check_against_naive<ann::KdTree>(); }
  SUBCASE("duplicate points") { check_duplicates<ann::KdTree>(); }
  SUBCASE("errors and k > n") { check_errors<ann::KdTree>(); }
  SUBCASE("update rebuilds") { check_update<ann::KdTree>(); }
}

TEST_CASE("make_index") {
  CHECK(ann::make_index("brute", 10, 3)->name() == "brute");
  CHECK(ann::make_index("kdtree", 10, 3)->name() == "kdtree");
  CHECK(ann::make_index("hnsw", 10, 3)->name() == "hnsw");
  CHECK(ann::make_index("auto", 100, 3)->name() == "kdtree");
  CHECK(ann::make_index("auto", 20000, 60)->name() == "brute");
  CHECK(ann::make_index("auto", 100000, 60)->name() == "hnsw");
  CHECK(ann::make_index("auto", 112000, 300)->name() == "hnsw");
  CHECK_THROWS_AS(ann::make_index("auto", -1, 3), std::invalid_argument);
  CHECK_THROWS_WITH_AS(ann::make_index("annoy", 10, 3), doctest::Contains("unknown index kind"),
                       std::invalid_argument);
}
