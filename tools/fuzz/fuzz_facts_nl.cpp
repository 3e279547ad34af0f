// tools/fuzz/fuzz_facts_nl.cpp: libFuzzer target for the .nl facts reader.
// Any input is refused with a ParseError (adding nothing to the KB) or read;
// what is read reads back the same once printed.
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto read = fuzz::read_input<ntp::Atom>(data, size, ntp::read_facts_nl);
  if (!read) return 0;
  FUZZ_CHECK(!read->rows.empty());
  fuzz::check_reparse(read->kb, read->rows);
  return 0;
}
