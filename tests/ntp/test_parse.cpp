// tests/ntp/test_parse.cpp: the .nl, .nlt, .pl and .tsv readers, parse_atom,
// their error messages, and (when the data sets are present) the real files.
#include <doctest/doctest.h>

#include "ntp/parse.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using ntp::KnowledgeBase;
using ntp::NewSymbols;
using ntp::ParseError;

namespace {

std::vector<ntp::Atom> facts_nl(const std::string& text, KnowledgeBase& kb, NewSymbols policy = NewSymbols::Allow,
                                const std::string& name = "t.nl") {
  std::istringstream in(text);
  return ntp::read_facts_nl(in, name, kb, policy);
}

std::vector<ntp::Atom> facts_tsv(const std::string& text, KnowledgeBase& kb, NewSymbols policy = NewSymbols::Allow) {
  std::istringstream in(text);
  return ntp::read_facts_tsv(in, "t.tsv", kb, policy);
}

std::vector<ntp::LabelledAtom> labelled_tsv(const std::string& text, KnowledgeBase& kb,
                                            NewSymbols policy = NewSymbols::Allow) {
  std::istringstream in(text);
  return ntp::read_labelled_tsv(in, "t.tsv", kb, policy);
}

std::vector<ntp::Template> templates_nlt(const std::string& text, KnowledgeBase& kb) {
  std::istringstream in(text);
  return ntp::read_templates_nlt(in, "t.nlt", kb);
}

std::vector<ntp::Template> templates_pl(const std::string& text, KnowledgeBase& kb) {
  std::istringstream in(text);
  return ntp::read_templates_pl(in, "t.pl", kb);
}

// The ParseError that `read` throws; fails the test if it throws none.
template <typename Read>
ParseError error_of(Read read) {
  try {
    read();
  } catch (const ParseError& e) {
    return e;
  }
  FAIL("expected a ParseError");
  throw std::logic_error("unreachable");
}

// A KB holding p(a, b), p(b, c), q(c, a).
KnowledgeBase small_kb() {
  KnowledgeBase kb;
  for (const ntp::Atom& f : facts_nl("p(a, b).\np(b, c).\nq(c, a).\n", kb)) kb.add_fact(f);
  return kb;
}

std::string name_of(const KnowledgeBase& kb, const ntp::Atom& a) { return ntp::to_string(kb, a); }

}  // namespace

// ---------------------------------------------------------------- .nl facts

TEST_CASE(".nl facts: comments, blank lines, duplicates, order") {
  KnowledgeBase kb;
  const auto facts = facts_nl(
      "% countries\n"
      "locatedIn(palau,micronesia).\n"
      "\n"
      "  locatedIn(palau, oceania).   % trailing comment\n"
      "locatedIn(palau,micronesia).\n"
      "neighborOf(guinea,guinea-bissau). neighborOf(guinea-bissau, guinea).\n"
      "locatedIn(são_tomé_and_príncipe,middle_africa).\n",
      kb);
  REQUIRE(facts.size() == 6);  // the duplicate is returned: read_facts does not dedupe
  CHECK(name_of(kb, facts[0]) == "locatedIn(palau, micronesia)");
  CHECK(name_of(kb, facts[1]) == "locatedIn(palau, oceania)");
  CHECK(facts[2] == facts[0]);
  CHECK(name_of(kb, facts[3]) == "neighborOf(guinea, guinea-bissau)");
  CHECK(name_of(kb, facts[4]) == "neighborOf(guinea-bissau, guinea)");
  CHECK(name_of(kb, facts[5]) == "locatedIn(são_tomé_and_príncipe, middle_africa)");
  CHECK(kb.predicates.names() == std::vector<std::string>{"locatedIn", "neighborOf"});
  CHECK(kb.constants.names() == std::vector<std::string>{"palau", "micronesia", "oceania", "guinea", "guinea-bissau",
                                                         "são_tomé_and_príncipe", "middle_africa"});
  CHECK(kb.facts.empty());  // the caller adds them
  int added = 0;
  for (const auto& f : facts) added += kb.add_fact(f) ? 1 : 0;
  CHECK(added == 5);
}

TEST_CASE(".nl facts: names with dots and slashes (FB15k style), other arities") {
  KnowledgeBase kb;
  const auto facts = facts_nl("/film/x./film/y(/m/01, /m/02).\nr(a, b, c).\nu(a).\n", kb);
  REQUIRE(facts.size() == 3);
  CHECK(kb.predicates.name(facts[0].predicate) == "/film/x./film/y");
  CHECK(name_of(kb, facts[0]) == "/film/x./film/y(/m/01, /m/02)");
  CHECK(facts[1].args.size() == 3);
  CHECK(facts[2].args.size() == 1);
}

TEST_CASE(".nl facts: NewSymbols::Refuse accepts known symbols") {
  KnowledgeBase kb = small_kb();
  const auto facts = facts_nl("q(a, c).\n", kb, NewSymbols::Refuse, "test.nl");
  REQUIRE(facts.size() == 1);
  CHECK(name_of(kb, facts[0]) == "q(a, c)");
}

// --------------------------------------------------------------- .tsv facts

TEST_CASE(".tsv facts are subject, predicate, object") {
  KnowledgeBase kb;
  const auto facts = facts_tsv("person100\tterm6\tperson80\r\n\nperson37\tterm10\tperson72\n", kb);
  REQUIRE(facts.size() == 2);
  CHECK(name_of(kb, facts[0]) == "term6(person100, person80)");
  CHECK(name_of(kb, facts[1]) == "term10(person37, person72)");
  // TSV names are not split into variables and constants: WN11 entities start with '_'.
  const auto wn = facts_tsv("__house_of_god_1\t_has_instance\t__church_2\n", kb);
  CHECK(name_of(kb, wn[0]) == "_has_instance(__house_of_god_1, __church_2)");
}

TEST_CASE("labelled .tsv (WN11 dev/test)") {
  KnowledgeBase kb;
  const auto rows = labelled_tsv("__a_1\t_type_of\t__b_1\t1\n__a_1\t_type_of\t__c_1\t-1\n", kb);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].label == 1);
  CHECK(rows[1].label == -1);
  CHECK(name_of(kb, rows[1].atom) == "_type_of(__a_1, __c_1)");
}

// ---------------------------------------------------------------- templates

TEST_CASE(".nlt templates: count, slots, variables, source") {
  KnowledgeBase kb = small_kb();
  const auto ts = templates_nlt("3  #1(X, Y) :- #2(X, Z), #2(Z, Y).\n3   #1(X, Y) :- #1(Y, X).\n", kb);
  REQUIRE(ts.size() == 2);

  const ntp::Template& t = ts[0];
  CHECK(t.copies == 3);
  CHECK(t.num_slots == 2);
  CHECK(t.slot_names == std::vector<std::string>{"#1", "#2"});
  CHECK(t.num_variables == 3);
  CHECK(t.variable_names == std::vector<std::string>{"X", "Y", "Z"});
  CHECK(t.source == "t.nlt:1");
  CHECK(t.head.predicate.is_slot);
  CHECK(t.head.predicate.id == 0);
  REQUIRE(t.body.size() == 2);
  CHECK(t.body[0].predicate.is_slot);
  CHECK(t.body[0].predicate.id == 1);
  CHECK(t.body[1].predicate.id == 1);  // the same #2
  CHECK(t.body[1].args[0].is_variable);
  CHECK(t.body[1].args[0].id == 2);  // Z
  CHECK(t.body[1].args[1].id == 1);  // Y
  CHECK(ntp::to_string(kb, t) == "#1(X, Y) :- #2(X, Z), #2(Z, Y)");

  // #1 shared between head and body: one slot.
  CHECK(ts[1].num_slots == 1);
  CHECK(ts[1].body[0].predicate.is_slot);
  CHECK(ts[1].body[0].predicate.id == 0);
  CHECK(ts[1].source == "t.nlt:2");
}

TEST_CASE(".nlt templates over several lines, blank-line separated") {
  KnowledgeBase kb = small_kb();
  const auto ts = templates_nlt(
      "20   #1(X, Y) :- #2(X, Y).\n"
      "\n"
      "% a comment\n"
      "20   #1(X, Y) :-\n"
      "        #2(X, Z),\n"
      "        #3(Z, Y).",  // no final newline, as in kinship.nlt
      kb);
  REQUIRE(ts.size() == 2);
  CHECK(ts[1].source == "t.nlt:4");
  CHECK(ts[1].copies == 20);
  CHECK(ts[1].num_slots == 3);
  CHECK(ts[1].body.size() == 2);
}

TEST_CASE(".nlt templates with fixed predicates and constants of the KB") {
  KnowledgeBase kb = small_kb();
  const auto ts = templates_nlt("2 #1(X, a) :- p(X, Y), #2(Y, a).\n", kb);
  REQUIRE(ts.size() == 1);
  const ntp::Template& t = ts[0];
  CHECK(t.num_slots == 2);
  CHECK_FALSE(t.head.args[1].is_variable);
  CHECK(t.head.args[1].id == kb.constants.find("a"));
  CHECK_FALSE(t.body[0].predicate.is_slot);
  CHECK(t.body[0].predicate.id == kb.predicates.find("p"));
  CHECK(t.body[1].predicate.id == 1);
  CHECK(ntp::to_string(kb, t) == "#1(X, a) :- p(X, Y), #2(Y, a)");
}

TEST_CASE(".pl clauses: unknown names are slots, known names fixed, <N> optional") {
  KnowledgeBase kb = small_kb();
  const auto ts = templates_pl(
      "r(X, Y) :- s(Y, X) <20>\n"
      "\n"
      "r(X, Y) :- s(X, Z),s(Z, Y)  <3>\n"
      "p(X, Y) :- p(Y, X)\n"
      "r(X, Y) :- p(X, Z), r(Z, Y) <5>   % comment\n",
      kb);
  REQUIRE(ts.size() == 4);
  CHECK(ts[0].copies == 20);
  CHECK(ts[0].num_slots == 2);
  CHECK(ts[0].slot_names == std::vector<std::string>{"r", "s"});
  CHECK(ts[0].source == "t.pl:1");
  CHECK(ts[1].num_slots == 2);  // s shared
  CHECK(ts[1].body[1].predicate.id == 1);
  CHECK(ts[1].source == "t.pl:3");
  CHECK(ts[2].copies == 1);
  CHECK(ts[2].num_slots == 0);
  CHECK_FALSE(ts[2].head.predicate.is_slot);
  CHECK(ts[2].head.predicate.id == kb.predicates.find("p"));
  CHECK(ts[3].num_slots == 1);  // r in head and body; p fixed
  CHECK(ts[3].head.predicate.is_slot);
  CHECK(ts[3].body[1].predicate.is_slot);
  CHECK(ts[3].body[1].predicate.id == ts[3].head.predicate.id);
  CHECK_FALSE(ts[3].body[0].predicate.is_slot);
  CHECK(ts[3].copies == 5);
  CHECK(kb.predicates.size() == 2);  // templates add no symbols
}

// ---------------------------------------------------------------- parse_atom

TEST_CASE("parse_atom") {
  KnowledgeBase kb = small_kb();
  CHECK(name_of(kb, ntp::parse_atom("p(a, c)", kb)) == "p(a, c)");
  CHECK(name_of(kb, ntp::parse_atom("  q(c,a).  ", kb)) == "q(c, a)");
  const ParseError unknown = error_of([&] { ntp::parse_atom("p(a, atlantis)", kb); });
  CHECK(std::string(unknown.what()) == "atom:1:6: unknown constant 'atlantis' (expected a constant of the KB)");
  const ParseError predicate = error_of([&] { ntp::parse_atom("livesIn(a, b)", kb); });
  CHECK(std::string(predicate.what()) == "atom:1:1: unknown predicate 'livesIn' (expected a predicate of the KB)");
  const ParseError variable = error_of([&] { ntp::parse_atom("p(a, X)", kb); });
  CHECK(std::string(variable.what()).find("'X'") != std::string::npos);
  CHECK(std::string(variable.what()).find("variables are not allowed") != std::string::npos);
  CHECK_THROWS_AS(ntp::parse_atom("p(a, b) q", kb), ParseError);
  CHECK_THROWS_AS(ntp::parse_atom("p(a, b", kb), ParseError);
  CHECK_THROWS_AS(ntp::parse_atom("", kb), ParseError);
}
