// tools/fuzz/fuzz_tsv.cpp: libFuzzer target for the TSV triples reader.
// Any input is refused with a ParseError (adding nothing to the KB) or read
// as binary atoms, which read back the same as .nl when their names can.
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ntp::KnowledgeBase kb;
  std::vector<ntp::Atom> facts;
  if (!fuzz::read_or_refuse(data, size, kb, facts, [](std::istream& in, ntp::KnowledgeBase& k) {
        return ntp::read_facts_tsv(in, "fuzz.tsv", k, ntp::NewSymbols::Allow);
      }))
    return 0;
  for (const ntp::Atom& f : facts) FUZZ_CHECK(f.args.size() == 2);
  // TSV names may hold what .nl names cannot (parentheses, upper case).
  if (fuzz::nl_names(kb)) fuzz::check_reparse(kb, facts);
  return 0;
}
