// tools/fuzz/fuzz_parse_atom.cpp: libFuzzer target for parse_atom, the query
// syntax of `ntp prove`. Any input is refused with a ParseError or read as
// an atom of the KB that prints and parses back to itself.
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ntp::KnowledgeBase kb = fuzz::small_kb();
  try {
    const ntp::Atom atom = ntp::parse_atom(fuzz::text_of(data, size), kb);
    FUZZ_CHECK(atom.predicate >= 0 && atom.predicate < kb.predicates.size());
    for (const int c : atom.args) FUZZ_CHECK(c >= 0 && c < kb.constants.size());
    FUZZ_CHECK(ntp::parse_atom(ntp::to_string(kb, atom), kb) == atom);
  } catch (const ntp::ParseError&) {
  }
  return 0;
}
