// tests/ann/hnsw_test.cpp: Hnsw recall against BruteForce on fixed-seed data,
// the integrity check after build, update and save/load, determinism with
// one thread, and errors.
#include "ann/brute_force.h"
#include "ann/hnsw.h"
#include "ann/synthetic.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <cstdio>
#include <fstream>
#include <limits>

namespace {

using ann::RowMatrix;

double recall_vs_brute(const ann::Hnsw& index, const RowMatrix& queries, int k = 10) {
  ann::BruteForce exact;
  exact.build(index.points());
  return ann::recall_at_k(index.search(queries, k), exact.search(queries, k), k);
}

// Replaces `count` rows (every n/count-th) by fresh points from `fresh`.
std::vector<int> move_rows(ann::Hnsw& index, int count, const RowMatrix& fresh) {
  std::vector<int> ids;
  const int step = index.size() / count;
  for (int i = 0; i < count; ++i) ids.push_back(i * step + (i % step));
  index.update(ids, fresh.topRows(count));
  return ids;
}

// Runs `body` with OpenMP limited to `threads`, restoring the old limit.
template <class F>
void with_threads(int threads, F body) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  body();
  omp_set_num_threads(before);
}

std::string temp_path(const char* name) { return std::string(NTP_BINARY_DIR) + "/" + name; }

}  // namespace

TEST_CASE("Hnsw recall@10 on a Gaussian mixture, build and updates") {
  // Queries from the same mixture: the last 300 rows.
  const RowMatrix all = ann::synthetic_mixture(12300, 48, 120, 101);
  const RowMatrix points = all.topRows(12000);
  const RowMatrix queries = all.bottomRows(300);
  ann::Hnsw index;
  index.build(points);
  CHECK(index.size() == 12000);
  CHECK(index.check_integrity() > 0);
  const double recall = recall_vs_brute(index, queries);
  MESSAGE("recall@10 after build: " << recall);
  CHECK(recall >= 0.95);

  SUBCASE("1% and then 10% of the rows move") {
    // Same centres (same seed) with a different spread: points move within
    // and between clusters, as trained embeddings do.
    const RowMatrix fresh = ann::synthetic_mixture(1200, 48, 120, 101, 0.5f);
    move_rows(index, 120, fresh);
    CHECK_NOTHROW(index.check_integrity());
    const double after_small = recall_vs_brute(index, queries);
    MESSAGE("recall@10 after moving 1%: " << after_small);
    CHECK(after_small >= 0.95);
    move_rows(index, 1200, fresh);
    CHECK_NOTHROW(index.check_integrity());
    const double after_large = recall_vs_brute(index, queries);
    MESSAGE("recall@10 after moving 10%: " << after_large);
    CHECK(after_large >= 0.95);
    // The moved rows are findable at their new place.
    const ann::Neighbours self = index.search(fresh.topRows(50), 1);
    int found = 0;
    for (int i = 0; i < 50; ++i) found += self.distances[i] == 0.0f;
    CHECK(found >= 48);
  }

  SUBCASE("save and load answer identically") {
    const std::string path = temp_path("hnsw_test.index");
    index.save(path);
    const std::unique_ptr<ann::Hnsw> loaded = ann::Hnsw::load(path);
    CHECK(loaded->check_integrity() == index.check_integrity());
    CHECK(loaded->points() == index.points());
    CHECK(loaded->max_level() == index.max_level());
    const ann::Neighbours a = index.search(queries, 10);
    const ann::Neighbours b = loaded->search(queries, 10);
    CHECK(a.ids == b.ids);
    CHECK(a.distances == b.distances);
    std::remove(path.c_str());
  }
}

TEST_CASE("Hnsw recall@10 on uniform low-dimensional data") {
  for (int d : {2, 3, 6}) {
    CAPTURE(d);
    const RowMatrix points = ann::synthetic_uniform(6000, d, 200 + d);
    const RowMatrix queries = ann::synthetic_uniform(300, d, 300 + d);
    ann::Hnsw index;
    index.build(points);
    CHECK_NOTHROW(index.check_integrity());
    const double recall = recall_vs_brute(index, queries);
    MESSAGE("d = " << d << " recall@10: " << recall);
    CHECK(recall >= 0.95);
  }
}

TEST_CASE("Hnsw is deterministic for a seed with one thread") {
  const RowMatrix points = ann::synthetic_mixture(3000, 16, 30, 7);
  with_threads(1, [&] {
    ann::Hnsw a, b;
    a.build(points);
    b.build(points);
    bool same = a.max_level() == b.max_level();
    for (int i = 0; i < 3000 && same; ++i)
      for (int layer = 0; layer <= a.level(i) && same; ++layer)
        same = a.links(i, layer) == b.links(i, layer);
    CHECK(same);
    ann::HnswParams other;
    other.seed = 43;
    ann::Hnsw c(other);
    c.build(points);
    bool differs = false;
    for (int i = 0; i < 3000 && !differs; ++i) differs = a.level(i) != c.level(i);
    CHECK(differs);
  });
}

TEST_CASE("Hnsw update moves the entry point and a lone top node") {
  const RowMatrix all = ann::synthetic_mixture(3100, 12, 30, 17);
  ann::Hnsw index;
  index.build(all.topRows(3000));
  int entry = -1;
  for (int i = 0; i < index.size() && entry < 0; ++i)
    if (index.level(i) == index.max_level()) entry = i;
  REQUIRE(entry >= 0);
  // Move the entry point far away, then a handful of others, twice.
  RowMatrix far = all.row(3000) * 10.0f;
  index.update({entry}, far);
  CHECK_NOTHROW(index.check_integrity());
  CHECK(index.search(far, 1).ids[0] == entry);
  const std::vector<int> ids = {1, 2, 3, entry};
  for (int round = 0; round < 2; ++round) {
    const RowMatrix to = all.middleRows(3001 + 4 * round, 4);
    index.update(ids, to);
    CHECK_NOTHROW(index.check_integrity());
    const ann::Neighbours self = index.search(to, 1);
    for (int i = 0; i < 4; ++i) CHECK(self.distances[i] == 0.0f);
  }
  const RowMatrix queries = all.bottomRows(80);
  CHECK(recall_vs_brute(index, queries) >= 0.95);
}

TEST_CASE("Hnsw small indexes, k > n, and parameters") {
  ann::Hnsw index;
  const RowMatrix one = ann::synthetic_gaussian(1, 5, 1);
  index.build(one);
  CHECK_NOTHROW(index.check_integrity());
  ann::Neighbours r = index.search(one, 3);
  CHECK(r.k == 1);
  CHECK(r.ids[0] == 0);
  CHECK(r.distances[0] == 0.0f);

  const RowMatrix few = ann::synthetic_gaussian(7, 5, 2);
  index.build(few);
  const RowMatrix queries = ann::synthetic_gaussian(4, 5, 3);
  r = index.search(queries, 20);
  ann::BruteForce exact;
  exact.build(few);
  const ann::Neighbours e = exact.search(queries, 20);
  CHECK(r.k == 7);
  CHECK(r.ids == e.ids);

  // A larger ef never hurts, a tiny one still returns k results. Built on
  // one thread: a parallel build links in an order that timing decides, and
  // its recall at ef 400 varied (0.997-1.000 on two threads, 0.989 once
  // under the sanitizers); one thread's graph is always the same (1.000).
  const RowMatrix all = ann::synthetic_mixture(4100, 20, 40, 5);
  const RowMatrix points = all.topRows(4000);
  const RowMatrix q2 = all.bottomRows(100);
  with_threads(1, [&] { index.build(points); });
  exact.build(points);
  const ann::Neighbours truth = exact.search(q2, 10);
  CHECK(index.search(q2, 10, 1).k == 10);
  CHECK(ann::recall_at_k(index.search(q2, 10, 400), truth, 10) >=
        ann::recall_at_k(index.search(q2, 10, 10), truth, 10) - 1e-9);
  CHECK(ann::recall_at_k(index.search(q2, 10, 400), truth, 10) >= 0.99);

  CHECK_THROWS_WITH_AS(ann::Hnsw(ann::HnswParams{1, 200, 64, 42, 0.3}), doctest::Contains("M must be"),
                       std::invalid_argument);
  CHECK_THROWS_AS(index.set_ef(0), std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.search(q2, 10, 0), doctest::Contains("ef must be >= 1"),
                       std::invalid_argument);
}

TEST_CASE("Hnsw argument errors") {
  ann::Hnsw index;
  const RowMatrix queries = ann::synthetic_gaussian(2, 4, 1);
  CHECK_THROWS_WITH_AS(index.search(queries, 1), doctest::Contains("empty"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.build(RowMatrix(0, 4)), doctest::Contains("empty"),
                       std::invalid_argument);
  RowMatrix bad = ann::synthetic_gaussian(20, 4, 2);
  bad(5, 1) = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH_AS(index.build(bad), doctest::Contains("row 5, column 1"),
                       std::invalid_argument);
  index.build(ann::synthetic_gaussian(20, 4, 3));
  CHECK_THROWS_WITH_AS(index.search(queries, 0), doctest::Contains("k must be >= 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.search(ann::synthetic_gaussian(2, 3, 4), 1),
                       doctest::Contains("4-dimensional"), std::invalid_argument);
  RowMatrix moved = ann::synthetic_gaussian(1, 4, 5);
  moved(0, 3) = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(index.update({2}, moved), std::invalid_argument);
  CHECK_THROWS_WITH_AS(index.update({20}, ann::synthetic_gaussian(1, 4, 5)),
                       doctest::Contains("outside"), std::invalid_argument);
}

TEST_CASE("Hnsw::load rejects foreign, truncated and future files") {
  const std::string path = temp_path("hnsw_test_bad.index");
  {
    std::ofstream out(path, std::ios::binary);
    out << "not an index at all";
  }
  CHECK_THROWS_WITH_AS(ann::Hnsw::load(path), doctest::Contains("bad magic number"),
                       std::runtime_error);
  ann::Hnsw index;
  index.build(ann::synthetic_gaussian(200, 8, 9));
  index.save(path);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  CHECK_THROWS_WITH_AS(ann::Hnsw::load(path), doctest::Contains("truncated"), std::runtime_error);
  bytes[8] = 99;  // version
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  CHECK_THROWS_WITH_AS(ann::Hnsw::load(path), doctest::Contains("format version 99"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(ann::Hnsw::load(path + ".missing"), doctest::Contains("cannot open"),
                       std::runtime_error);
  std::remove(path.c_str());
}

TEST_CASE("Concurrent single-query searches from an outer OpenMP loop match one batch") {
  const RowMatrix all = ann::synthetic_mixture(4200, 24, 40, 23);
  const RowMatrix points = all.topRows(4000);
  const RowMatrix queries = all.bottomRows(200);
  for (const char* kind : {"brute", "kdtree", "hnsw"}) {
    CAPTURE(kind);
    std::unique_ptr<ann::Index> index = ann::make_index(kind, 4000, 24);
    index->build(points);
    const ann::Neighbours batch = index->search(queries, 5);
    std::vector<int> ids(batch.ids.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (int q = 0; q < 200; ++q) {
      const RowMatrix one = queries.row(q);
      const ann::Neighbours r = index->search(one, 5);
      for (int j = 0; j < 5; ++j) ids[static_cast<size_t>(q) * 5 + j] = r.ids[j];
    }
    CHECK(ids == batch.ids);
  }
}
