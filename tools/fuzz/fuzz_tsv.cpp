// tools/fuzz/fuzz_tsv.cpp: libFuzzer target for the TSV triples reader.
// Any input is refused with a ParseError (adding nothing to the KB) or read
// as binary atoms, which read back the same as .nl when their names can.
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto read = fuzz::read_input<ntp::Atom>(data, size, ntp::read_facts_tsv);
  if (!read) return 0;
  for (const ntp::Atom& f : read->rows) FUZZ_CHECK(f.args.size() == 2);
  // TSV names may hold what .nl names cannot (parentheses, upper case).
  if (fuzz::nl_names(read->kb)) fuzz::check_reparse(read->kb, read->rows);
  return 0;
}
