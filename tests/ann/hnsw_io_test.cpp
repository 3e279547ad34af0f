// tests/ann/hnsw_io_test.cpp: Hnsw::load under damage: header sizes near the
// integer limits refused before they allocate, streams that cannot seek,
// every truncation, and every byte changed (refused, or a graph that
// searches safely).
#include "ann/hnsw.h"
#include "ann/synthetic.h"
#include "tests/memory_limit.h"
#include "tests/pipe_buffer.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

namespace {

using ann::RowMatrix;

// The bytes Hnsw::save writes for `index`.
std::string saved_bytes(const ann::Hnsw& index) {
  const std::string path = std::string(NTP_BINARY_DIR) + "/hnsw_io_test.index";
  index.save(path);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return bytes;
}

std::unique_ptr<ann::Hnsw> load_bytes(const std::string& bytes) {
  std::istringstream in(bytes);
  return ann::Hnsw::load(in, "index");
}

template <class T>
std::string patched(std::string bytes, std::size_t offset, T value) {
  std::memcpy(&bytes[offset], &value, sizeof value);
  return bytes;
}

// Layout (hnsw_io.cpp): magic 8, version 4, n d M ef_construction ef at 12..32,
// seed 8, entry and max level at 40..48, then levels[n], vectors, links.
constexpr std::size_t kN = 12, kD = 16, kM = 20, kLevels = 48;

}  // namespace

TEST_CASE("Hnsw::load refuses header sizes near the integer limits before allocating") {
  ann::HnswParams params;
  params.M = 4;
  ann::Hnsw index(params);
  index.build(ann::synthetic_gaussian(40, 6, 1));
  const std::string bytes = saved_bytes(index);
  REQUIRE(load_bytes(bytes)->points() == index.points());
  const std::size_t upper_size = kLevels + 40 + 40 * 6 * 4 + 40 * (1 + 2 * 4) * 4;
  std::uint64_t upper = 0;
  std::memcpy(&upper, bytes.data() + upper_size, sizeof upper);
  REQUIRE_MESSAGE(bytes.size() == upper_size + 8 + 4 * upper, "the index file layout changed");

  std::vector<std::string> damaged;
  for (const std::int32_t v : {std::numeric_limits<std::int32_t>::min(), -1, 0,
                               std::numeric_limits<std::int32_t>::max(), 1 << 28, 1 << 20}) {
    damaged.push_back(patched(bytes, kN, v));
    damaged.push_back(patched(bytes, kD, v));
  }
  damaged.push_back(patched(bytes, kM, std::int32_t{1000}));  // a valid M, but link blocks the file does not hold
  for (const std::uint64_t v : {std::uint64_t{1} << 63, std::uint64_t{1} << 40, upper + (1 << 28), ~std::uint64_t{0}})
    damaged.push_back(patched(bytes, upper_size, v));

  MemoryLimit limit(256 << 20);
  if (kMemoryLimitWorks) {
    REQUIRE(limit.active());
    REQUIRE(allocation_fails(std::size_t{1} << 30));  // the limit bites, so the checks below can fail
  }
  for (std::size_t i = 0; i < damaged.size(); ++i) {
    CAPTURE(i);
    CHECK_THROWS_AS(load_bytes(damaged[i]), std::runtime_error);  // not std::bad_alloc
    PipeBuffer pipe(damaged[i]);
    std::istream unseekable(&pipe);
    CHECK_THROWS_AS(ann::Hnsw::load(unseekable, "pipe"), std::runtime_error);
  }
}

TEST_CASE("Hnsw::load reads a stream that cannot seek") {
  ann::Hnsw index;
  index.build(ann::synthetic_gaussian(100, 8, 2));
  PipeBuffer pipe(saved_bytes(index));
  std::istream unseekable(&pipe);
  const std::unique_ptr<ann::Hnsw> loaded = ann::Hnsw::load(unseekable, "pipe");
  CHECK(loaded->points() == index.points());
  CHECK(loaded->check_integrity() == index.check_integrity());
}

TEST_CASE("Hnsw::load: every truncation is refused, every changed byte refused or searchable") {
  ann::HnswParams params;
  params.M = 3;
  ann::Hnsw index(params);
  index.build(ann::synthetic_gaussian(30, 4, 3));
  const std::string bytes = saved_bytes(index);
  for (std::size_t n = 0; n < bytes.size(); ++n) CHECK_THROWS_AS(load_bytes(bytes.substr(0, n)), std::runtime_error);
  CHECK_THROWS_AS(load_bytes(bytes + '\0'), std::runtime_error);  // bytes after the last section

  const RowMatrix queries = ann::synthetic_gaussian(5, 4, 4);
  int refused = 0, loaded = 0;
  for (std::size_t i = 8; i < bytes.size(); ++i)
    for (const char v : {'\x00', '\x01', '\x7f', '\xff'}) {
      if (bytes[i] == v) continue;
      std::unique_ptr<ann::Hnsw> h;
      try {
        h = load_bytes(patched(bytes, i, v));
      } catch (const std::runtime_error&) {
        ++refused;
        continue;
      }
      ++loaded;  // a vector value or a search parameter changed: the graph must still be searchable
      h->check_integrity();
      const ann::Neighbours r = h->search(queries, 3);
      for (const int id : r.ids) CHECK((id >= 0 && id < 30));
    }
  MESSAGE("damaged index files: " << refused << " refused, " << loaded << " loaded");
  CHECK(refused > 0);
}
