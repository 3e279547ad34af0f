// tools/fuzz/fuzz_facts_nl.cpp: libFuzzer target for the .nl facts reader.
// Any input is refused with a ParseError (adding nothing to the KB) or read;
// what is read reads back the same once printed.
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ntp::KnowledgeBase kb;
  std::vector<ntp::Atom> facts;
  if (!fuzz::read_or_refuse(data, size, kb, facts, [](std::istream& in, ntp::KnowledgeBase& k) {
        return ntp::read_facts_nl(in, "fuzz.nl", k, ntp::NewSymbols::Allow);
      }))
    return 0;
  FUZZ_CHECK(!facts.empty());
  fuzz::check_reparse(kb, facts);
  return 0;
}
