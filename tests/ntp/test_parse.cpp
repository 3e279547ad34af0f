// tests/ntp/test_parse.cpp: the .nl, .nlt, .pl and .tsv readers, parse_atom,
// their error messages, and (when the data sets are present) the real files.
#include <doctest/doctest.h>

#include "ntp/kb/parse.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
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
  const ParseError arity = error_of([&] { ntp::parse_atom("p(a, b, c)", kb); });
  CHECK(std::string(arity.what()) ==
        "atom:1:1: predicate 'p' has 3 arguments here but 2 arguments in the KB (expected 2 arguments)");
  CHECK_THROWS_AS(ntp::parse_atom("p(a, b) q", kb), ParseError);
  CHECK_THROWS_AS(ntp::parse_atom("p(a, b", kb), ParseError);
  CHECK_THROWS_AS(ntp::parse_atom("", kb), ParseError);
}

// ------------------------------------------------------------- bad input

TEST_CASE("ParseError formats FILE:LINE:COL: message") {
  CHECK(std::string(ParseError("f.nl", 3, 7, "bad").what()) == "f.nl:3:7: bad");
  CHECK(std::string(ParseError("f.nl", 3, 0, "bad").what()) == "f.nl:3: bad");
  CHECK(std::string(ParseError("f.nl", 0, 0, "bad").what()) == "f.nl: bad");
  const ParseError e("f.nl", 3, 7, "bad");
  CHECK(e.file == "f.nl");
  CHECK(e.line == 3);
  CHECK(e.column == 7);
}

TEST_CASE("bad .nl: unbalanced parentheses") {
  KnowledgeBase kb;
  SUBCASE("not closed before '.'") {
    const ParseError e = error_of([&] { facts_nl("p(a, b.\n", kb); });
    CHECK(std::string(e.what()) ==
          "t.nl:1:7: unbalanced parentheses: '(' at 1:2 is not closed, found '.' (expected ',' or ')')");
    CHECK(e.line == 1);
    CHECK(e.column == 7);
  }
  SUBCASE("not closed by the end of the line: reported where ')' was due") {
    const ParseError e = error_of([&] { facts_nl("p(a, b).\np(a, b\nq(c, d).\n", kb); });
    CHECK(std::string(e.what()) == "t.nl:2:7: unbalanced parentheses: '(' at 2:2 is not closed (expected ',' or ')')");
  }
  SUBCASE("one ')' too many") {
    const ParseError e = error_of([&] { facts_nl("p(a, b)).\n", kb); });
    CHECK(std::string(e.what()) ==
          "t.nl:1:8: unbalanced parentheses: ')' has no matching '(' (expected '.' at the end of the fact)");
  }
  SUBCASE("nested '('") {
    const ParseError e = error_of([&] { facts_nl("p((a, b)).\n", kb); });
    CHECK(std::string(e.what()) == "t.nl:1:3: unbalanced parentheses: nested '(' (expected an argument)");
  }
  SUBCASE("missing '('") {
    const ParseError e = error_of([&] { facts_nl("p a, b).\n", kb); });
    CHECK(std::string(e.what()) == "t.nl:1:3: found 'a' (expected '(' after the predicate name 'p')");
  }
}

TEST_CASE("bad .nl: missing final '.'") {
  KnowledgeBase kb;
  const ParseError middle = error_of([&] { facts_nl("p(a, b).\np(b, c)\np(c, d).\n", kb); });
  CHECK(std::string(middle.what()) == "t.nl:2:8: missing '.' at the end of the fact (expected '.')");
  const ParseError last = error_of([&] { facts_nl("p(a, b).\np(b, c)", kb); });
  CHECK(std::string(last.what()) == "t.nl:2:8: missing '.' at the end of the fact (expected '.')");
  const ParseError garbage = error_of([&] { facts_nl("p(a, b) x.\n", kb); });
  CHECK(std::string(garbage.what()) == "t.nl:1:9: found 'x' (expected '.' at the end of the fact)");
}

TEST_CASE("bad .nl: a variable in a fact") {
  KnowledgeBase kb;
  const ParseError upper = error_of([&] { facts_nl("p(a, b).\np(a, X).\n", kb); });
  CHECK(std::string(upper.what()) ==
        "t.nl:2:6: variable 'X' in a fact (expected a constant; variables start with an upper-case letter or '_')");
  const ParseError underscore = error_of([&] { facts_nl("p(_x, b).\n", kb); });
  CHECK(underscore.line == 1);
  CHECK(underscore.column == 3);
  // Columns count characters, not bytes: 'ã' is one column.
  const ParseError unicode = error_of([&] { facts_nl("p(são, X).\n", kb); });
  CHECK(unicode.column == 8);
}

TEST_CASE("bad .nl: other mistakes") {
  KnowledgeBase kb;
  const ParseError arity = error_of([&] { facts_nl("p(a, b).\n  p(a).\n", kb); });
  CHECK(std::string(arity.what()) ==
        "t.nl:2:3: predicate 'p' has 1 argument here but 2 arguments at 1:1 (expected 2 arguments)");
  // A later file must agree with the arities of the KB's facts; a file that
  // fails adds nothing.
  KnowledgeBase known = small_kb();
  const ParseError kb_arity = error_of([&] { facts_nl("q(a, c).\nq(a, b, c).\n", known, NewSymbols::Refuse); });
  CHECK(std::string(kb_arity.what()) ==
        "t.nl:2:1: predicate 'q' has 3 arguments here but 2 arguments in the KB (expected 2 arguments)");
  CHECK(known.facts.size() == 3);
  const ParseError slot = error_of([&] { facts_nl("#1(a, b).\n", kb); });
  CHECK(std::string(slot.what()) == "t.nl:1:1: slot '#1' in a fact (expected a predicate name)");
  const ParseError colon = error_of([&] { facts_nl("p(a, b):q.\n", kb); });
  CHECK(std::string(colon.what()) == "t.nl:1:8: unexpected ':' (expected ':-')");
}

TEST_CASE("bad input: empty files") {
  KnowledgeBase kb = small_kb();
  const ParseError nl = error_of([&] { facts_nl("", kb); });
  CHECK(std::string(nl.what()) == "t.nl: no facts in the file (expected at least one fact such as 'p(a, b).')");
  CHECK(nl.line == 0);
  CHECK_THROWS_AS(facts_nl("% only a comment\n\n   \n", kb), ParseError);
  const ParseError tsv = error_of([&] { facts_tsv("\n\n", kb); });
  CHECK(std::string(tsv.what()) == "t.tsv: no triples in the file (expected lines such as 'a<TAB>p<TAB>b')");
  CHECK_THROWS_AS(labelled_tsv("", kb), ParseError);
  const ParseError nlt = error_of([&] { templates_nlt("% nothing\n", kb); });
  CHECK(std::string(nlt.what()) ==
        "t.nlt: no templates in the file (expected templates such as '3  #1(X, Y) :- #2(Y, X).')");
  const ParseError pl = error_of([&] { templates_pl("\n", kb); });
  CHECK(std::string(pl.what()) == "t.pl: no clauses in the file (expected clauses such as 'p(X, Y) :- q(Y, X) <20>')");
}

TEST_CASE("bad input: unknown symbols under NewSymbols::Refuse") {
  KnowledgeBase kb = small_kb();
  const ParseError constant = error_of([&] { facts_nl("p(a, b).\np(a, zz).\n", kb, NewSymbols::Refuse, "test.nl"); });
  CHECK(std::string(constant.what()) == "test.nl:2:6: unknown constant 'zz' (expected a constant already in the KB)");
  const ParseError predicate = error_of([&] { facts_nl("r(a, b).\n", kb, NewSymbols::Refuse, "test.nl"); });
  CHECK(std::string(predicate.what()) == "test.nl:1:1: unknown predicate 'r' (expected a predicate already in the KB)");
  const ParseError tsv = error_of([&] { facts_tsv("a\tp\tb\nzz\tp\tb\n", kb, NewSymbols::Refuse); });
  CHECK(std::string(tsv.what()) == "t.tsv:2:1: unknown constant 'zz' (expected a constant already in the KB)");
  const ParseError tsv_predicate = error_of([&] { labelled_tsv("a\tr\tb\t1\n", kb, NewSymbols::Refuse); });
  CHECK(std::string(tsv_predicate.what()) ==
        "t.tsv:1:3: unknown predicate 'r' (expected a predicate already in the KB)");
  // Templates never add symbols: constants and non-slot predicates must be known.
  const ParseError template_constant = error_of([&] { templates_nlt("3 #1(X, zz) :- #2(X, Y).\n", kb); });
  CHECK(std::string(template_constant.what()) ==
        "t.nlt:1:9: unknown constant 'zz' (expected a variable, which starts with an upper-case letter or '_', "
        "or a constant already in the KB)");
  const ParseError template_predicate = error_of([&] { templates_nlt("3 #1(X, Y) :- r(Y, X).\n", kb); });
  CHECK(std::string(template_predicate.what()) ==
        "t.nlt:1:15: unknown predicate 'r' (expected a slot such as '#1' or a predicate already in the KB)");
}

TEST_CASE("bad .nlt: template count that is not a positive integer") {
  KnowledgeBase kb = small_kb();
  const ParseError zero = error_of([&] { templates_nlt("0 #1(X, Y) :- #2(Y, X).\n", kb); });
  CHECK(std::string(zero.what()) ==
        "t.nlt:1:1: template count '0' is not a positive integer (expected a count such as 3)");
  const ParseError negative =
      error_of([&] { templates_nlt("3 #1(X, Y) :- #2(Y, X).\n-3 #1(X, Y) :- #2(Y, X).\n", kb); });
  CHECK(std::string(negative.what()) ==
        "t.nlt:2:1: template count '-3' is not a positive integer (expected a count such as 3)");
  const ParseError word = error_of([&] { templates_nlt("abc #1(X, Y) :- #2(Y, X).\n", kb); });
  CHECK(std::string(word.what()) ==
        "t.nlt:1:1: template count 'abc' is not a positive integer (expected a count such as 3)");
  const ParseError huge = error_of([&] { templates_nlt("99999999999 #1(X, Y) :- #2(Y, X).\n", kb); });
  CHECK(huge.column == 1);
  const ParseError missing = error_of([&] { templates_nlt("#1(X, Y) :- #2(Y, X).\n", kb); });
  CHECK(std::string(missing.what()) ==
        "t.nlt:1:1: missing template count, found '#1' (expected a positive integer, the number of rules, before "
        "the template)");
}

TEST_CASE("bad .nlt: structure") {
  KnowledgeBase kb = small_kb();
  const ParseError dot = error_of([&] { templates_nlt("3 #1(X, Y) :- #2(Y, X)\n\n3 #1(X, Y) :- #1(Y, X).\n", kb); });
  CHECK(std::string(dot.what()) == "t.nlt:1:23: missing '.' at the end of the template (expected ',' or '.')");
  const ParseError dot_at_end = error_of([&] { templates_nlt("3 #1(X, Y) :-\n  #2(X, Z),\n  #3(Z, Y)", kb); });
  CHECK(std::string(dot_at_end.what()) == "t.nlt:3:11: missing '.' at the end of the template (expected ',' or '.')");
  const ParseError body = error_of([&] { templates_nlt("3 #1(X, Y).\n", kb); });
  CHECK(std::string(body.what()) == "t.nlt:1:11: rule without a body (expected ':-' and the body atoms)");
  const ParseError paren = error_of([&] { templates_nlt("3 #1(X, Y :- #2(Y, X).\n", kb); });
  CHECK(std::string(paren.what()) ==
        "t.nlt:1:11: unbalanced parentheses: '(' at 1:5 is not closed, found ':-' (expected ',' or ')')");
  const ParseError slot_arity = error_of([&] { templates_nlt("3 #1(X, Y) :- #1(X).\n", kb); });
  CHECK(std::string(slot_arity.what()) ==
        "t.nlt:1:15: slot '#1' has 1 argument here but 2 arguments earlier in the template (expected 2 arguments)");
  const ParseError fixed_arity = error_of([&] { templates_nlt("3 #1(X, Y) :- p(X, Y, Z).\n", kb); });
  CHECK(std::string(fixed_arity.what()) ==
        "t.nlt:1:15: predicate 'p' has 3 arguments here but 2 arguments in the facts (expected 2 arguments)");
}

TEST_CASE("bad .pl: copy count and structure") {
  KnowledgeBase kb = small_kb();
  const ParseError zero = error_of([&] { templates_pl("r(X, Y) :- s(Y, X) <20>\nr(X, Y) :- s(Y, X) <0>\n", kb); });
  CHECK(std::string(zero.what()) == "t.pl:2:21: bad copy count '0' (expected a positive integer, as in '<20>')");
  const ParseError word = error_of([&] { templates_pl("r(X, Y) :- s(Y, X) <abc>\n", kb); });
  CHECK(std::string(word.what()) == "t.pl:1:21: bad copy count 'abc' (expected a positive integer, as in '<20>')");
  const ParseError empty = error_of([&] { templates_pl("r(X, Y) :- s(Y, X) <>\n", kb); });
  CHECK(std::string(empty.what()) == "t.pl:1:21: bad copy count '>' (expected a positive integer, as in '<20>')");
  const ParseError unclosed = error_of([&] { templates_pl("r(X, Y) :- s(Y, X) <20\n", kb); });
  CHECK(std::string(unclosed.what()) == "t.pl:1:23: input ends too early (expected '>' closing the copy count)");
  const ParseError after = error_of([&] { templates_pl("r(X, Y) :- s(Y, X) <20> x\n", kb); });
  CHECK(std::string(after.what()) ==
        "t.pl:1:25: found 'x' (expected ',', a copy count such as '<20>', or the end of the line)");
  const ParseError body = error_of([&] { templates_pl("r(X, Y)\n", kb); });
  CHECK(std::string(body.what()) == "t.pl:1:8: rule without a body (expected ':-' and the body atoms)");
  const ParseError arity = error_of([&] { templates_pl("r(X) :- p(X)\n", kb); });
  CHECK(std::string(arity.what()) ==
        "t.pl:1:9: predicate 'p' has 1 argument here but 2 arguments in the facts (expected 2 arguments)");
}

TEST_CASE("bad .tsv: column count and labels") {
  KnowledgeBase kb;
  const ParseError few = error_of([&] { facts_tsv("a\tp\tb\na\tp\n", kb); });
  CHECK(std::string(few.what()) ==
        "t.tsv:2:4: found 2 tab-separated columns (expected 3 or 4: subject<TAB>predicate<TAB>object[<TAB>count])");
  const ParseError many = error_of([&] { facts_tsv("a\tp\tb\t1\tx\n", kb); });
  CHECK(std::string(many.what()) ==
        "t.tsv:1:9: found 5 tab-separated columns (expected 3 or 4: subject<TAB>predicate<TAB>object[<TAB>count])");
  const ParseError spaces = error_of([&] { facts_tsv("a p b\n", kb); });
  CHECK(spaces.line == 1);
  const ParseError empty_field = error_of([&] { facts_tsv("a\t\tb\n", kb); });
  CHECK(std::string(empty_field.what()) == "t.tsv:1:3: empty predicate column (expected a name)");
  const ParseError unlabelled = error_of([&] { labelled_tsv("a\tp\tb\n", kb); });
  CHECK(std::string(unlabelled.what()) ==
        "t.tsv:1:6: found 3 tab-separated columns (expected 4: subject<TAB>predicate<TAB>object<TAB>label)");
  const ParseError zero = error_of([&] { labelled_tsv("a\tp\tb\t1\na\tp\tc\t0\n", kb); });
  CHECK(std::string(zero.what()) == "t.tsv:2:7: bad label '0' (expected 1 or -1)");
  const ParseError word = error_of([&] { labelled_tsv("a\tp\tb\ttrue\n", kb); });
  CHECK(std::string(word.what()) == "t.tsv:1:7: bad label 'true' (expected 1 or -1)");
}

TEST_CASE("bad input: a missing file names its path") {
  KnowledgeBase kb;
  const std::string path = "no/such/dir/facts.nl";
  for (const ParseError& e : {error_of([&] { ntp::read_facts(path, kb, NewSymbols::Allow); }),
                              error_of([&] { ntp::read_templates(path, kb); }),
                              error_of([&] { ntp::read_labelled_tsv(path, kb, NewSymbols::Allow); }),
                              error_of([&] { ntp::read_names(path); })}) {
    CHECK(e.file == path);
    CHECK(std::string(e.what()).rfind(path + ": cannot open file: ", 0) == 0);
  }
}

TEST_CASE("a file that fails to parse adds nothing to the KB") {
  KnowledgeBase kb = small_kb();
  const int predicates = kb.predicates.size(), constants = kb.constants.size();
  // New symbols on the first lines, the error on the last one.
  CHECK_THROWS_AS(facts_nl("new_p(new_a, new_b).\np(a, new_c).\np(a, X).\n", kb), ParseError);
  CHECK_THROWS_AS(facts_tsv("new_a\tnew_p\tnew_b\na\tp\n", kb), ParseError);
  CHECK_THROWS_AS(labelled_tsv("new_a\tnew_p\tnew_b\t1\na\tp\tb\t2\n", kb), ParseError);
  CHECK(kb.predicates.size() == predicates);
  CHECK(kb.constants.size() == constants);
  CHECK(kb.constants.find("new_a") == -1);
  // The same file without its bad line adds its new symbols in order of first appearance.
  facts_nl("new_p(new_a, new_b).\np(a, new_c).\n", kb);
  CHECK(kb.predicates.size() == predicates + 1);
  CHECK(kb.constants.size() == constants + 3);
  CHECK(kb.constants.find("new_a") == constants);
  CHECK(kb.constants.find("new_c") == constants + 2);
}

TEST_CASE("read_names trims blanks and skips empty lines") {
  const std::string path = (std::filesystem::temp_directory_path() / "ntp_test_read_names.txt").string();
  {
    std::ofstream out(path);
    out << "  europe \n\nasia\r\n\t\noceania";
  }
  const auto names = ntp::read_names(path);
  std::remove(path.c_str());
  CHECK(names == std::vector<std::string>{"europe", "asia", "oceania"});
}

TEST_CASE("bad input: a stray token at the start of a line is reported where it is") {
  KnowledgeBase kb = small_kb();
  const ParseError fact = error_of([&] { facts_nl("p(a, b).\n  (c, d).\n", kb); });
  CHECK(std::string(fact.what()) == "t.nl:2:3: found '(' (expected a predicate name)");
  const ParseError rule =
      error_of([&] { templates_nlt("3 #1(X, Y) :- #2(Y, X).\n  . 3 #1(X, Y) :- #2(Y, X).\n", kb); });
  CHECK(std::string(rule.what()) ==
        "t.nlt:2:3: missing template count, found '.' (expected a positive integer, the number of rules, before the "
        "template)");
  const ParseError body = error_of([&] { templates_nlt("3 #1(X, Y) :-\n  , #2(Y, X).\n", kb); });
  CHECK(std::string(body.what()) == "t.nlt:2:3: found ',' (expected a predicate name)");
  const ParseError open = error_of([&] { templates_pl("r(X, Y) :- s(Y, X) <\n", kb); });
  CHECK(std::string(open.what()) ==
        "t.pl:1:21: input ends too early (expected a positive integer copy count, as in '<20>')");
}

// ------------------------------------------- bytes that are not text, sizes

namespace {

// "what" of the ParseError every reader throws on `text`, checked to be the
// same message at the same place for all of them. `line` is the text of one
// line holding an atom; the readers see it in their own syntax.
struct ReaderCase {
  std::string name;
  std::function<void(const std::string&)> read;
};

std::vector<ReaderCase> every_reader(KnowledgeBase& kb) {
  return {
      {".nl", [&](const std::string& t) { facts_nl(t, kb); }},
      {".tsv", [&](const std::string& t) { facts_tsv(t, kb); }},
      {"labelled .tsv", [&](const std::string& t) { labelled_tsv(t, kb); }},
      {".nlt", [&](const std::string& t) { templates_nlt(t, kb); }},
      {".pl", [&](const std::string& t) { templates_pl(t, kb); }},
      {"parse_atom", [&](const std::string& t) { ntp::parse_atom(t, kb); }},
  };
}

// Each reader's text for one line whose 8th character is `bad` (the bytes
// before it are ASCII, so the column is 8 everywhere).
std::string line_with(const std::string& reader, const std::string& bad) {
  if (reader == ".nl") return "p(a, bc" + bad + "d).\n";
  if (reader == ".tsv") return "a\tp\tbcd" + bad + "\n";  // a tab is one column
  if (reader == "labelled .tsv") return "a\tp\tbcd" + bad + "\t1\n";
  if (reader == ".nlt") return "3 #1(XY" + bad + ", Y) :- #2(Y, X).\n";
  if (reader == ".pl") return "r(X, Y)" + bad + " :- p(Y, X)\n";
  return "p(a, bc" + bad + "d)";
}

}  // namespace

TEST_CASE("bad bytes: NUL, control characters and malformed UTF-8 are refused by every reader, where they are") {
  // A NUL inside an atom once made the tokenizer emit empty names forever.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {std::string(1, '\0'), "found a NUL byte (expected text; NUL bytes come from binary or UTF-16 files)"},
      {"\x1B", "found control character 0x1B (expected text: tabs, line breaks and printable characters)"},
      {"\x7F", "found control character 0x7F (expected text: tabs, line breaks and printable characters)"},
      {"\f", "found control character 0x0C (expected text: tabs, line breaks and printable characters)"},
      {"\x80", "found byte 0x80, which is not valid UTF-8 (expected UTF-8 text; convert the file, e.g. with iconv "
               "-f latin1 -t utf-8)"},
      {"\xE9t\xE9", "found byte 0xE9, which is not valid UTF-8 (expected UTF-8 text; convert the file, e.g. with "
                    "iconv -f latin1 -t utf-8)"},  // Latin-1 'été'
      {"\xC0\xAF", "found byte 0xC0, which is not valid UTF-8"},  // overlong '/'
      {"\xED\xA0\x80", "found byte 0xED, which is not valid UTF-8"},  // a UTF-16 surrogate
      {"\xF4\x90\x80\x80", "found byte 0xF4, which is not valid UTF-8"},  // above U+10FFFF
      {"\xE2\x82", "found byte 0xE2, which is not valid UTF-8"},  // '€' cut short
      {"\xEF\xBB\xBF", "found a byte order mark (U+FEFF) after the start of the text"},
  };
  KnowledgeBase kb = small_kb();
  for (const ReaderCase& reader : every_reader(kb)) {
    for (const auto& bad_case : bad) {
      // Named copies: doctest's INFO captures in a lambda, and C++17 lambdas
      // cannot capture structured bindings.
      const std::string bytes = bad_case.first, message = bad_case.second;
      const std::string text = line_with(reader.name, bytes);
      INFO(reader.name << " reading " << text.size() << " bytes, bad byte " << int(static_cast<unsigned char>(bytes[0])));
      const ParseError e = error_of([&] { reader.read(text); });
      CHECK(e.line == 1);
      CHECK(e.column == 8);
      CHECK(std::string(e.what()).find(message) != std::string::npos);
    }
  }
}

TEST_CASE("bad bytes: the position counts lines and code points, and comments are checked too") {
  KnowledgeBase kb;
  const ParseError nul = error_of([&] { facts_nl(std::string("p(a, b).\nq(a,\0).\n", 17), kb); });
  CHECK(std::string(nul.what()) ==
        "t.nl:2:5: found a NUL byte (expected text; NUL bytes come from binary or UTF-16 files)");
  // 'ã' and '€' are one column each.
  const ParseError after_utf8 = error_of([&] { facts_nl("p(são, €\x80).\n", kb); });
  CHECK(after_utf8.column == 9);
  const ParseError comment = error_of([&] { facts_nl("p(a, b).  % caf\xE9\n", kb); });
  CHECK(comment.line == 1);
  CHECK(comment.column == 16);
  CHECK(kb.constants.size() == 0);  // nothing was added
  // read_names (Countries' region lists) checks its bytes too.
  const std::string path = (std::filesystem::temp_directory_path() / "ntp_test_bad_names.txt").string();
  std::ofstream(path) << "europe\nasia\x01\n";
  const ParseError names = error_of([&] { ntp::read_names(path); });
  std::remove(path.c_str());
  CHECK(names.line == 2);
  CHECK(names.column == 5);
}

TEST_CASE("bad bytes: a byte order mark after the start of a file (fuzz findings)") {
  // Read as part of a name, a mark made `\uFEFFaffects` a predicate apart
  // from `affects`, which printed at the start of a file read back as
  // `affects` (found by fuzz_facts_nl, fuzz_tsv and fuzz_labelled_tsv).
  KnowledgeBase kb;
  const ParseError nl = error_of([&] { facts_nl("% family\n\xEF\xBB\xBF" "affects(amino, cell).\n", kb); });
  CHECK(nl.line == 2);
  CHECK(nl.column == 1);
  CHECK(std::string(nl.what()).find("byte order mark") != std::string::npos);
  const ParseError tsv = error_of([&] { facts_tsv("palau\t\xEF\xBB\xBF" "atedIn\tmicronesia\n", kb); });
  CHECK(tsv.line == 1);
  CHECK(tsv.column == 7);
  const ParseError labelled = error_of([&] { labelled_tsv("ian_1\t\xEF\xBB\xBF" "pe_of\tam_1\t1\n", kb); });
  CHECK(labelled.column == 7);
  // The .pl reader tokenizes line by line: a mark at the start of a later line is still refused.
  KnowledgeBase small = small_kb();
  const ParseError pl = error_of([&] { templates_pl("r(X, Y) :- p(Y, X)\n\xEF\xBB\xBFr(X, Y) :- q(Y, X)\n", small); });
  CHECK(pl.line == 2);
  CHECK(pl.column == 1);
  CHECK(kb.constants.size() == 0);
}

TEST_CASE("bad bytes: endless binary input (/dev/zero) is refused at its first NUL, not read to its end") {
  if (!std::filesystem::exists("/dev/zero")) return;
  KnowledgeBase kb;
  for (const ParseError& e : {error_of([&] { ntp::read_facts("/dev/zero", kb, NewSymbols::Allow); }),
                              error_of([&] { ntp::read_templates("/dev/zero", kb); }),
                              error_of([&] { ntp::read_labelled_tsv("/dev/zero", kb, NewSymbols::Allow); }),
                              error_of([&] { ntp::read_names("/dev/zero"); })}) {
    CHECK(std::string(e.what()) ==
          "/dev/zero:1:1: found a NUL byte (expected text; NUL bytes come from binary or UTF-16 files)");
  }
}

TEST_CASE("text that is fine: UTF-8 of every length, a byte order mark, CRLF, no final newline") {
  KnowledgeBase kb;
  const auto facts = facts_nl("\xEF\xBB\xBFp(são, €uro).\r\np(😀, ü).\r\n\tp(a, b).", kb);
  REQUIRE(facts.size() == 3);
  CHECK(name_of(kb, facts[0]) == "p(são, €uro)");
  CHECK(name_of(kb, facts[1]) == "p(😀, ü)");
  // CRLF files report the same positions as LF files.
  const ParseError crlf = error_of([&] { facts_nl("p(a, b).\r\np(b, c)\r\np(c, d).\r\n", kb); });
  CHECK(std::string(crlf.what()) == "t.nl:2:8: missing '.' at the end of the fact (expected '.')");
  const ParseError tsv_crlf = error_of([&] { facts_tsv("a\tp\tb\r\na\tp\r\n", kb); });
  CHECK(tsv_crlf.column == 4);  // just after 'p', as with LF
  const auto bom_tsv = facts_tsv("\xEF\xBB\xBF" "a\tp\tb\r\nb\tp\tc", kb);
  CHECK(name_of(kb, bom_tsv[0]) == "p(a, b)");
  CHECK(name_of(kb, bom_tsv[1]) == "p(b, c)");
  CHECK(labelled_tsv("a\tp\tb\t1\r\na\tp\tc\t-1", kb).size() == 2);
  KnowledgeBase small = small_kb();
  CHECK(templates_nlt("3 #1(X, Y) :- #2(Y, X).\r\n2 #1(X, Y) :-\r\n  #2(X, Z),\r\n  #3(Z, Y).", small).size() == 2);
  const auto pl = templates_pl("r(X, Y) :- s(Y, X) <20>\r\nr(X, Y) :- s(X, Y) <3>", small);
  REQUIRE(pl.size() == 2);
  CHECK(pl[0].copies == 20);
  CHECK(pl[1].copies == 3);
}

TEST_CASE("long lines: a line of megabytes parses in linear time") {
  KnowledgeBase kb;
  std::string line;
  for (int i = 0; i < 100000; ++i) line += "p(c" + std::to_string(i) + ", c" + std::to_string(i + 1) + "). ";
  CHECK(facts_nl(line, kb).size() == 100000);  // 2.2 MB on one line
  const std::string long_name(4 << 20, 'x');
  const auto one = facts_nl("p(" + long_name + ", a).", kb);
  CHECK(kb.constants.name(one[0].args[0]).size() == long_name.size());
  const auto tsv = facts_tsv("a\tp\t" + long_name + "\n", kb);
  CHECK(tsv.size() == 1);
  // A TSV line of a million tabs: the columns are counted once (this took
  // quadratic time), and the error names the first column too many.
  const ParseError tabs = error_of([&] { facts_tsv("a\tp\tb" + std::string(1000000, '\t') + "\n", kb); });
  CHECK(std::string(tabs.what()) ==
        "t.tsv:1:8: found 1000003 tab-separated columns (expected 3 or 4: "
        "subject<TAB>predicate<TAB>object[<TAB>count])");
}

TEST_CASE("sizes: atoms of many arguments, long rules, large copy counts") {
  auto atom_of = [](const std::string& predicate, int arity, const std::string& arg_prefix) {
    std::string s = predicate + "(";
    for (int i = 0; i < arity; ++i) s += (i ? "," : "") + arg_prefix + std::to_string(i);
    return s + ")";
  };
  KnowledgeBase kb;
  // 64 arguments are allowed (the model file's limit), 65 or thousands are not.
  REQUIRE(facts_nl(atom_of("wide", 64, "c") + ".\n", kb).size() == 1);
  for (int arity : {65, 5000}) {
    const ParseError e = error_of([&] { facts_nl(atom_of("p", arity, "c") + ".\n", kb); });
    CHECK(std::string(e.what()) == "t.nl:1:" + std::to_string(3 + 3 * 10 + 4 * 54) +
                                       ": atom 'p' has more than 64 arguments (expected at most 64)");
  }
  KnowledgeBase small = small_kb();
  const ParseError query = error_of([&] { ntp::parse_atom(atom_of("p", 100, "a"), small); });
  CHECK(std::string(query.what()).find("atom 'p' has more than 64 arguments") != std::string::npos);
  const ParseError rule = error_of([&] { templates_nlt("1 " + atom_of("#1", 65, "X") + " :- #2(X0, X1).\n", small); });
  CHECK(std::string(rule.what()).find("atom '#1' has more than 64 arguments") != std::string::npos);

  // Body atoms: 64 allowed, the 65th refused where it starts.
  auto rule_of = [](int body_atoms) {
    std::string s = "1 #1(X, Y) :- ";
    for (int i = 0; i < body_atoms; ++i) s += (i ? ", " : "") + std::string("#2(X, Y)");
    return s + ".\n";
  };
  CHECK(templates_nlt(rule_of(64), small)[0].body.size() == 64);
  const ParseError body = error_of([&] { templates_nlt(rule_of(3000), small); });
  CHECK(std::string(body.what()) ==
        "t.nlt:1:" + std::to_string(15 + 64 * 10) + ": rule with more than 64 body atoms (expected at most 64)");

  // Variables: at most 1024 distinct ones in a template.
  std::string many = "1 #1(X, Y) :- ";
  for (int a = 0; a < 20; ++a) many += (a ? ", " : "") + atom_of("#2", 60, "V" + std::to_string(a) + "_");
  const ParseError variables = error_of([&] { templates_nlt(many + ".\n", small); });
  CHECK(std::string(variables.what()).find("template with more than 1024 variables (expected at most 1024)") !=
        std::string::npos);

  // Copy counts: at most a million rules from one template, however the count is written.
  CHECK(templates_nlt("1000000 #1(X, Y) :- #2(Y, X).\n", small)[0].copies == 1000000);
  CHECK(templates_nlt("0003 #1(X, Y) :- #2(Y, X).\n", small)[0].copies == 3);
  for (const std::string count : {"1000001", "99999999999999999999"}) {
    const ParseError nlt = error_of([&] { templates_nlt(count + " #1(X, Y) :- #2(Y, X).\n", small); });
    CHECK(std::string(nlt.what()) ==
          "t.nlt:1:1: template count '" + count + "' is too large (expected at most 1000000)");
    const ParseError pl = error_of([&] { templates_pl("r(X, Y) :- s(Y, X) <" + count + ">\n", small); });
    CHECK(std::string(pl.what()) == "t.pl:1:21: copy count '" + count + "' is too large (expected at most 1000000)");
  }
}

// ------------------------------------------------------- the real data sets

namespace {

// The data sets: $NTP_DATA_DIR, else data/ in the source tree (where
// tools/get-datasets.sh puts them), else ../shared/datasets next to it.
// Empty when absent (the tests then say so and skip).
std::string data_dir() {
  const char* env = std::getenv("NTP_DATA_DIR");
  const std::string source = NTP_SOURCE_DIR;
  std::string dir = source + "/../shared/datasets";
  if (env != nullptr && *env != '\0') {
    dir = env;
  } else if (std::filesystem::is_directory(source + "/data")) {
    dir = source + "/data";
  }
  return std::filesystem::is_directory(dir) ? dir : std::string();
}

}  // namespace

TEST_CASE("real data: Countries S1") {
  const std::string dir = data_dir();
  if (dir.empty()) {
    MESSAGE("data sets not found (run tools/get-datasets.sh or set NTP_DATA_DIR); skipping");
    return;
  }
  KnowledgeBase kb;
  const auto facts = ntp::read_facts(dir + "/countries_s1/ntp/countries_S1.nl", kb, NewSymbols::Allow);
  CHECK(facts.size() == 1111);
  for (const auto& f : facts) kb.add_fact(f);
  CHECK(kb.facts.size() == 1110);  // locatedIn(micronesia,oceania). is there twice
  CHECK(kb.predicates.names() == std::vector<std::string>{"locatedIn", "neighborOf"});

  // The .tsv copy holds the same facts; reading it adds no symbol.
  const int constants = kb.constants.size();
  const auto tsv = ntp::read_facts(dir + "/countries_s1/gntp/countries_S1.tsv", kb, NewSymbols::Refuse);
  CHECK(kb.constants.size() == constants);
  int missing = 0;
  for (const auto& f : tsv) missing += kb.contains(f) ? 0 : 1;
  CHECK(missing == 0);

  const auto templates = ntp::read_templates(dir + "/countries_s1/ntp/countries_S1.nlt", kb);
  REQUIRE(templates.size() == 2);
  CHECK(ntp::to_string(kb, templates[0]) == "#1(X, Y) :- #1(Y, X)");
  CHECK(templates[0].num_slots == 1);
  // The 3-atom template, with #2 shared by both body atoms.
  CHECK(ntp::to_string(kb, templates[1]) == "#1(X, Y) :- #2(X, Z), #2(Z, Y)");
  CHECK(templates[1].copies == 3);
  CHECK(templates[1].num_slots == 2);
  CHECK(templates[1].num_variables == 3);

  const auto gold = ntp::read_templates(dir + "/countries_s1/gntp/countries_S1_ground.pl", kb);
  REQUIRE(gold.size() == 2);
  CHECK(ntp::to_string(kb, gold[1]) == "locatedIn(X, Y) :- locatedIn(X, Z), locatedIn(Z, Y)");
  CHECK(gold[1].num_slots == 0);

  const auto regions = ntp::read_names(dir + "/countries_s1/ntp/regions.txt");
  CHECK(regions.size() == 5);
  const auto test = ntp::read_names(dir + "/countries_s1/ntp/test.txt");
  CHECK(test.size() == 24);
  int unknown = 0;
  for (const auto& name : regions) unknown += kb.constants.find(name) < 0 ? 1 : 0;
  for (const auto& name : test) unknown += kb.constants.find(name) < 0 ? 1 : 0;
  CHECK(unknown == 0);
  // The CLI's way in: a test country's atom (it is not a training fact in S1).
  const ntp::Atom atom = ntp::parse_atom("locatedIn(" + test[0] + ", " + regions[0] + ").", kb);
  CHECK(ntp::to_string(kb, atom) == "locatedIn(" + test[0] + ", " + regions[0] + ")");
}

TEST_CASE("real data: Kinship, UMLS and Nations templates") {
  const std::string dir = data_dir();
  if (dir.empty()) {
    MESSAGE("data sets not found (run tools/get-datasets.sh or set NTP_DATA_DIR); skipping");
    return;
  }
  SUBCASE("kinship.nlt: three templates of 20, the last over three lines") {
    KnowledgeBase kb;
    for (const auto& f : ntp::read_facts(dir + "/kinship/ntp/train.nl", kb, NewSymbols::Allow)) kb.add_fact(f);
    CHECK(kb.facts.size() == 8544);
    const auto dev = ntp::read_facts(dir + "/kinship/ntp/dev.nl", kb, NewSymbols::Refuse);
    CHECK(dev.size() == 1068);
    const auto ts = ntp::read_templates(dir + "/kinship/ntp/kinship.nlt", kb);
    REQUIRE(ts.size() == 3);
    for (const auto& t : ts) CHECK(t.copies == 20);
    CHECK(ntp::to_string(kb, ts[1]) == "#1(X, Y) :- #2(Y, X)");
    CHECK(ntp::to_string(kb, ts[2]) == "#1(X, Y) :- #2(X, Z), #3(Z, Y)");
    CHECK(ts[2].source == dir + "/kinship/ntp/kinship.nlt:5");
  }
  SUBCASE("umls.nlt") {
    KnowledgeBase kb;
    for (const auto& f : ntp::read_facts(dir + "/umls/gntp/train.tsv", kb, NewSymbols::Allow)) kb.add_fact(f);
    CHECK(kb.facts.size() == 5216);
    const auto ts = ntp::read_templates(dir + "/umls/ntp/umls.nlt", kb);
    REQUIRE(ts.size() == 3);
    CHECK(ntp::to_string(kb, ts[0]) == "#1(X, Y) :- #2(X, Z), #3(Z, Y)");
    CHECK(ntp::to_string(kb, ts[1]) == "#1(X, Y) :- #2(X, Z), #2(Z, Y)");
    CHECK(ts[1].num_slots == 2);
    CHECK(ntp::to_string(kb, ts[2]) == "#1(X, Y) :- #2(X, Y)");
  }
  SUBCASE("nations gntp clauses.pl") {
    KnowledgeBase kb;
    for (const auto& f : ntp::read_facts(dir + "/nations/gntp/train.tsv", kb, NewSymbols::Allow)) kb.add_fact(f);
    CHECK(kb.facts.size() == 1592);
    const auto ts = ntp::read_templates(dir + "/nations/gntp/clauses.pl", kb);
    REQUIRE(ts.size() == 3);
    CHECK(ntp::to_string(kb, ts[0]) == "p(X, Y) :- q(X, Y)");
    CHECK(ntp::to_string(kb, ts[2]) == "p(X, Y) :- q(X, Z), r(Z, Y)");
    for (const auto& t : ts) {
      CHECK(t.copies == 20);
      CHECK(t.head.predicate.is_slot);
    }
    CHECK(ts[2].num_slots == 3);
  }
}

TEST_CASE("real data: WN11 labelled dev.tsv") {
  const std::string dir = data_dir();
  if (dir.empty()) {
    MESSAGE("data sets not found (run tools/get-datasets.sh or set NTP_DATA_DIR); skipping");
    return;
  }
  KnowledgeBase kb;
  const auto dev = ntp::read_labelled_tsv(dir + "/wn11/gntp/dev.tsv", kb, NewSymbols::Allow);
  CHECK(dev.size() == 5218);
  int positives = 0;
  for (const auto& row : dev) positives += row.label == 1 ? 1 : 0;
  CHECK(positives == 2609);
  CHECK(ntp::to_string(kb, dev[0].atom) == "_type_of(__genus_xylomelum_1, __dicot_genus_1)");
  CHECK(kb.predicates.size() == 11);
}

TEST_CASE("real data: every .nl, .nlt, .pl and .tsv file parses") {
  const std::string dir = data_dir();
  if (dir.empty()) {
    MESSAGE("data sets not found (run tools/get-datasets.sh or set NTP_DATA_DIR); skipping");
    return;
  }
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& dataset : fs::directory_iterator(dir)) {
    for (const char* sub : {"ntp", "gntp"}) {
      const fs::path folder = dataset.path() / sub;
      if (!fs::is_directory(folder)) continue;
      for (const auto& entry : fs::directory_iterator(folder)) {
        const std::string path = entry.path().string(), ext = entry.path().extension().string();
        KnowledgeBase kb;
        INFO(path);
        if (ext == ".nl") {
          CHECK_NOTHROW(ntp::read_facts(path, kb, NewSymbols::Allow));
        } else if (ext == ".nlt" || ext == ".pl") {
          CHECK_NOTHROW(ntp::read_templates(path, kb));  // slots only (or known names) against an empty KB
        } else if (ext == ".tsv") {
          std::ifstream in(path);
          std::string first;
          std::getline(in, first);
          const bool labelled = std::count(first.begin(), first.end(), '\t') == 3;
          if (labelled) {
            CHECK_NOTHROW(ntp::read_labelled_tsv(path, kb, NewSymbols::Allow));
          } else {
            CHECK_NOTHROW(ntp::read_facts(path, kb, NewSymbols::Allow));
          }
        } else {
          continue;
        }
        ++files;
      }
    }
  }
  CHECK(files > 50);
}
