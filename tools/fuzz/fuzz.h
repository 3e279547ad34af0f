// tools/fuzz/fuzz.h: what the libFuzzer targets of tools/fuzz/ share: an
// invariant check that crashes (so libFuzzer records the input), the small KB
// templates and queries are read against, and the reparse oracle of the fact
// readers. Built only by `make fuzz` (CMake option NTP_FUZZ).
#pragma once

#include "ntp/kb/parse.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

// Like assert, but on in every build: a broken invariant is a finding.
#define FUZZ_CHECK(condition)                                                              \
  do {                                                                                     \
    if (!(condition)) {                                                                    \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

namespace fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// p/2, q/2 and r/1 over the constants a, b, c (and the family KB's fatherOf,
// so that its templates and queries get past the name lookup).
inline ntp::KnowledgeBase small_kb() {
  ntp::KnowledgeBase kb;
  std::istringstream in("p(a, b).\np(b, c).\nq(c, a).\nr(a).\nfatherOf(a, b).\n");
  for (const ntp::Atom& f : ntp::read_facts_nl(in, "kb.nl", kb, ntp::NewSymbols::Allow)) kb.add_fact(f);
  return kb;
}

// True when a TSV name reads back as one .nl name of that kind: no
// punctuation or blanks inside, a constant not shaped like a variable, a
// predicate not shaped like a slot.
inline bool nl_name(const std::string& n, bool constant) {
  if (n.empty() || n.find_first_of("(),:%<>. \t\r\n") != std::string::npos) return false;
  return constant ? !(n[0] == '_' || (n[0] >= 'A' && n[0] <= 'Z')) : n[0] != '#';
}

inline bool nl_names(const ntp::KnowledgeBase& kb) {
  for (const std::string& n : kb.constants.names())
    if (!nl_name(n, true)) return false;
  for (const std::string& n : kb.predicates.names())
    if (!nl_name(n, false)) return false;
  return true;
}

// What a reader made of the input: the KB it filled and the rows it read.
template <class Row>
struct Read {
  ntp::KnowledgeBase kb;
  std::vector<Row> rows;
};

// The input read by `reader` into a fresh KB (new symbols allowed), or
// nothing when it was refused; a refusal must leave the KB empty.
template <class Row>
std::optional<Read<Row>> read_input(const std::uint8_t* data, std::size_t size,
                                    std::vector<Row> (*reader)(std::istream&, const std::string&, ntp::KnowledgeBase&,
                                                               ntp::NewSymbols)) {
  Read<Row> read;
  std::istringstream in(text_of(data, size));
  try {
    read.rows = reader(in, "fuzz input", read.kb, ntp::NewSymbols::Allow);
  } catch (const ntp::ParseError&) {
    FUZZ_CHECK(read.kb.predicates.size() == 0 && read.kb.constants.size() == 0);
    return std::nullopt;
  }
  return read;
}

// Facts that parsed once must parse again, to the same atoms, from their
// printed form under NewSymbols::Refuse: the printer and parser agree, and a
// successful read interned every symbol it used.
inline void check_reparse(ntp::KnowledgeBase& kb, const std::vector<ntp::Atom>& facts) {
  std::string printed;
  for (const ntp::Atom& f : facts) printed += ntp::to_string(kb, f) + ".\n";
  std::istringstream in(printed);
  try {
    FUZZ_CHECK(ntp::read_facts_nl(in, "printed.nl", kb, ntp::NewSymbols::Refuse) == facts);
  } catch (const ntp::ParseError& e) {
    std::fprintf(stderr, "facts read from the input do not read back once printed: %s\n", e.what());
    std::abort();
  }
}

}  // namespace fuzz
