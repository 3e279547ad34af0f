// tools/fuzz/fuzz_load_checkpoint.cpp: libFuzzer target for load_checkpoint
// on bytes. Any input is refused with std::runtime_error (never bad_alloc) or
// gives a checkpoint whose fact order is a permutation of its model's facts.
#include "ntp/train/checkpoint.h"
#include "tools/fuzz/fuzz.h"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(fuzz::text_of(data, size));
  try {
    const ntp::Checkpoint c = ntp::load_checkpoint(in, "fuzz.ckpt");
    FUZZ_CHECK(c.state.order.size() == c.model.kb.facts.size());
    for (std::size_t f : c.state.order) FUZZ_CHECK(f < c.model.kb.facts.size());
    FUZZ_CHECK(c.model.constants.value.rows() == c.model.kb.constants.size());
  } catch (const std::runtime_error&) {
  }
  return 0;
}
