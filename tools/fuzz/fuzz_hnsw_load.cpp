// tools/fuzz/fuzz_hnsw_load.cpp: libFuzzer target for Hnsw::load on bytes.
// Any input is refused with std::runtime_error or gives an index that passes
// its integrity check and answers a search with ids of its points.
#include "ann/hnsw.h"
#include "tools/fuzz/fuzz.h"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(fuzz::text_of(data, size));
  std::unique_ptr<ann::Hnsw> index;
  try {
    index = ann::Hnsw::load(in, "fuzz.index");
  } catch (const std::runtime_error&) {
    return 0;
  }
  index->check_integrity();
  ann::RowMatrix query = ann::RowMatrix::Zero(1, index->dim());
  const ann::Neighbours found = index->search(query, 3, 8);
  for (const int id : found.ids) FUZZ_CHECK(id >= 0 && id < index->size());
  return 0;
}
