// tools/fuzz/fuzz_templates_pl.cpp: libFuzzer target for the gntp .pl clause
// reader. Any input is refused with a ParseError or read as clauses within
// the limits of ntp/limits.h.
#include "ntp/kb/limits.h"
#include "tools/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ntp::KnowledgeBase kb = fuzz::small_kb();
  const int predicates = kb.predicates.size();
  std::istringstream in(fuzz::text_of(data, size));
  try {
    for (const ntp::Template& t : ntp::read_templates_pl(in, "fuzz.pl", kb)) {
      FUZZ_CHECK(t.copies >= 1 && t.copies <= ntp::kMaxTemplateCopies);
      FUZZ_CHECK(!t.body.empty() && t.body.size() <= static_cast<std::size_t>(ntp::kMaxBodyAtoms));
      FUZZ_CHECK(t.slot_names.size() == static_cast<std::size_t>(t.num_slots));
      FUZZ_CHECK(t.variable_names.size() == static_cast<std::size_t>(t.num_variables));
      for (const ntp::RuleAtom& a : t.body) {
        FUZZ_CHECK(!a.args.empty() && a.args.size() <= static_cast<std::size_t>(ntp::kMaxArity));
        FUZZ_CHECK(a.predicate.id >= 0 && a.predicate.id < (a.predicate.is_slot ? t.num_slots : predicates));
      }
      (void)ntp::to_string(kb, t);
    }
  } catch (const ntp::ParseError&) {
  }
  FUZZ_CHECK(kb.predicates.size() == predicates);  // templates never add symbols
  return 0;
}
