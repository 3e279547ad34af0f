// tests/ann/distance_test.cpp: every distance kernel this CPU runs against a
// double-precision loop, the kernels against each other bit for bit, the
// batched form against single calls, and choosing a kernel by name.
#include "ann/distance.h"
#include "ann/hnsw.h"
#include "ann/synthetic.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

namespace {

// Puts the kernel in use back when a test case ends.
struct KernelGuard {
  std::string saved = ann::vector_code();
  ~KernelGuard() { ann::use_vector_code(saved); }
};

std::vector<float> random_floats(int n, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(rng);
  return v;
}

}  // namespace

TEST_CASE("every kernel this CPU runs gives the same bits, close to a double-precision sum") {
  KernelGuard guard;
  const std::vector<std::string> kernels = ann::runnable_vector_codes();
  REQUIRE(!kernels.empty());
  if (std::getenv("NTP_VECTOR_CODE") == nullptr) CHECK(kernels.front() == guard.saved);  // the widest is the default
  std::mt19937 rng(7);
  // Every path through the kernel: blocks of 16, 8, 4 and a scalar tail.
  for (int d : {0, 1, 3, 4, 7, 8, 12, 15, 16, 17, 29, 31, 32, 33, 100, 301}) {
    const std::vector<float> a = random_floats(d, rng), b = random_floats(d, rng);
    double exact = 0;
    for (int i = 0; i < d; ++i) exact += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    std::vector<float> got;
    for (const std::string& k : kernels) {
      REQUIRE(ann::use_vector_code(k));
      CHECK(std::string(ann::vector_code()) == k);
      got.push_back(ann::l2_squared(a.data(), b.data(), d));
    }
    CAPTURE(d);
    CHECK(std::fabs(got[0] - exact) <= 1e-5 * (1 + exact));
    for (size_t i = 1; i < got.size(); ++i) {
      CAPTURE(kernels[i]);
      CHECK(std::memcmp(&got[i], &got[0], sizeof(float)) == 0);
    }
  }
}

TEST_CASE("the batched distances equal single calls, row by row") {
  KernelGuard guard;
  std::mt19937 rng(11);
  const int rows = 50, d = 37;
  const std::vector<float> table = random_floats(rows * d, rng), q = random_floats(d, rng);
  const std::vector<int> ids = {49, 0, 3, 3, 17, 48, 1, 25, 8};
  for (const std::string& k : ann::runnable_vector_codes()) {
    REQUIRE(ann::use_vector_code(k));
    std::vector<float> out(ids.size(), -1.0f);
    ann::l2_squared_to_rows(q.data(), table.data(), d, ids.data(), static_cast<int>(ids.size()), d, out.data());
    for (size_t j = 0; j < ids.size(); ++j)
      CHECK(out[j] == ann::l2_squared(q.data(), table.data() + static_cast<size_t>(ids[j]) * d, d));
    ann::l2_squared_to_rows(q.data(), table.data(), d, ids.data(), 0, d, out.data());  // nothing to do
  }
}

TEST_CASE("an HNSW graph is searched the same way with every kernel") {
  KernelGuard guard;
  const ann::RowMatrix points = ann::synthetic_gaussian(2000, 24, 3);
  const ann::RowMatrix queries = ann::synthetic_gaussian(50, 24, 4);
  // One graph (a parallel build may link differently run to run), searched
  // with each kernel: the search is deterministic given the distances.
  ann::Hnsw index(ann::HnswParams{});
  index.build(points);
  std::vector<ann::Neighbours> found;
  for (const std::string& k : ann::runnable_vector_codes()) {
    REQUIRE(ann::use_vector_code(k));
    found.push_back(index.search(queries, 10));
  }
  for (size_t i = 1; i < found.size(); ++i) {
    CHECK(found[i].ids == found[0].ids);
    CHECK(found[i].distances == found[0].distances);
  }
}

TEST_CASE("a kernel is chosen by name only if it exists and this CPU runs it") {
  KernelGuard guard;
  CHECK_FALSE(ann::use_vector_code("no such code"));
  CHECK_FALSE(ann::use_vector_code(""));
  CHECK(std::string(ann::vector_code()) == guard.saved);  // unchanged by the refusals
  const std::string baseline = ann::runnable_vector_codes().back();
  CHECK(ann::use_vector_code(baseline));
  CHECK(std::string(ann::vector_code()) == baseline);
}
