// tools/fuzz/fuzz_labelled_tsv.cpp: libFuzzer target for WN11's labelled TSV
// reader. Any input is refused with a ParseError (adding nothing to the KB)
// or read as +1/-1 binary atoms, which read back the same as .nl when their
// names can.
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto read = fuzz::read_input<ntp::LabelledAtom>(data, size, ntp::read_labelled_tsv);
  if (!read) return 0;
  std::vector<ntp::Atom> facts;
  for (const ntp::LabelledAtom& row : read->rows) {
    FUZZ_CHECK(row.label == 1 || row.label == -1);
    FUZZ_CHECK(row.atom.args.size() == 2);
    facts.push_back(row.atom);
  }
  if (fuzz::nl_names(read->kb)) fuzz::check_reparse(read->kb, facts);
  return 0;
}
