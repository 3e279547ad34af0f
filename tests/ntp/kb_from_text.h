// Shared by the ntp tests: a KB from facts in .nl text and templates in .nlt
// (or, with pl = true, .pl) text; new symbols are allowed.
#pragma once

#include "ntp/kb/parse.h"

#include <sstream>
#include <string>

inline ntp::KnowledgeBase kb_from_text(const std::string& facts, const std::string& templates = "", bool pl = false) {
  ntp::KnowledgeBase kb;
  std::istringstream in(facts);
  for (const ntp::Atom& a : ntp::read_facts_nl(in, "facts.nl", kb, ntp::NewSymbols::Allow)) kb.add_fact(a);
  if (!templates.empty()) {
    std::istringstream t(templates);
    kb.templates = pl ? ntp::read_templates_pl(t, "rules.pl", kb) : ntp::read_templates_nlt(t, "rules.nlt", kb);
  }
  return kb;
}
