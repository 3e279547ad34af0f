// tools/fuzz/fuzz_templates_nlt.cpp: libFuzzer target for the .nlt template
// reader. Any input is refused with a ParseError or read as templates within
// the limits of ntp/limits.h, whose printed form reads back the same.
#include "ntp/kb/limits.h"
#include "tools/fuzz/fuzz.h"

namespace {

void check_template(const ntp::KnowledgeBase& kb, const ntp::Template& t) {
  FUZZ_CHECK(t.copies >= 1 && t.copies <= ntp::kMaxTemplateCopies);
  FUZZ_CHECK(!t.body.empty() && t.body.size() <= static_cast<std::size_t>(ntp::kMaxBodyAtoms));
  FUZZ_CHECK(t.slot_names.size() == static_cast<std::size_t>(t.num_slots));
  FUZZ_CHECK(t.variable_names.size() == static_cast<std::size_t>(t.num_variables));
  FUZZ_CHECK(t.num_variables <= ntp::kMaxTemplateSymbols);
  std::vector<const ntp::RuleAtom*> atoms{&t.head};
  for (const ntp::RuleAtom& a : t.body) atoms.push_back(&a);
  for (const ntp::RuleAtom* a : atoms) {
    FUZZ_CHECK(!a->args.empty() && a->args.size() <= static_cast<std::size_t>(ntp::kMaxArity));
    FUZZ_CHECK(a->predicate.id >= 0 && a->predicate.id < (a->predicate.is_slot ? t.num_slots : kb.predicates.size()));
    for (const ntp::Term& term : a->args)
      FUZZ_CHECK(term.id >= 0 && term.id < (term.is_variable ? t.num_variables : kb.constants.size()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ntp::KnowledgeBase kb = fuzz::small_kb();
  std::istringstream in(fuzz::text_of(data, size));
  std::vector<ntp::Template> templates;
  try {
    templates = ntp::read_templates_nlt(in, "fuzz.nlt", kb);
  } catch (const ntp::ParseError&) {
    return 0;
  }
  std::string printed;
  for (const ntp::Template& t : templates) {
    check_template(kb, t);
    printed += std::to_string(t.copies) + " " + ntp::to_string(kb, t) + ".\n";
  }
  std::istringstream again(printed);
  try {
    const std::vector<ntp::Template> reread = ntp::read_templates_nlt(again, "printed.nlt", kb);
    FUZZ_CHECK(reread.size() == templates.size());
    for (std::size_t i = 0; i < reread.size(); ++i) {
      FUZZ_CHECK(reread[i].copies == templates[i].copies);
      FUZZ_CHECK(ntp::to_string(kb, reread[i]) == ntp::to_string(kb, templates[i]));
    }
  } catch (const ntp::ParseError& e) {
    std::fprintf(stderr, "templates read from the input do not read back once printed: %s\n", e.what());
    std::abort();
  }
  return 0;
}
