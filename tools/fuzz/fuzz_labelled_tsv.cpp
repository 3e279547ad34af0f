// tools/fuzz/fuzz_labelled_tsv.cpp: libFuzzer target for WN11's labelled TSV
// reader. Any input is refused with a ParseError (adding nothing to the KB)
// or read as +1/-1 binary atoms, which read back the same as .nl when their
// names can.
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ntp::KnowledgeBase kb;
  std::istringstream in(fuzz::text_of(data, size));
  std::vector<ntp::LabelledAtom> rows;
  try {
    rows = ntp::read_labelled_tsv(in, "fuzz.tsv", kb, ntp::NewSymbols::Allow);
  } catch (const ntp::ParseError&) {
    FUZZ_CHECK(kb.predicates.size() == 0 && kb.constants.size() == 0);
    return 0;
  }
  std::vector<ntp::Atom> facts;
  for (const ntp::LabelledAtom& row : rows) {
    FUZZ_CHECK(row.label == 1 || row.label == -1);
    FUZZ_CHECK(row.atom.args.size() == 2);
    facts.push_back(row.atom);
  }
  if (fuzz::nl_names(kb)) fuzz::check_reparse(kb, facts);
  return 0;
}
