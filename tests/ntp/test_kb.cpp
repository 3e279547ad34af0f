// tests/ntp/test_kb.cpp: Vocabulary, AtomHash, KnowledgeBase::add_fact and printing.
#include <doctest/doctest.h>

#include "ntp/kb/kb.h"

using ntp::Atom;
using ntp::KnowledgeBase;

TEST_CASE("Vocabulary interns names in order of first appearance") {
  ntp::Vocabulary v;
  CHECK(v.size() == 0);
  CHECK(v.find("palau") == -1);
  CHECK(v.intern("palau") == 0);
  CHECK(v.intern("oceania") == 1);
  CHECK(v.intern("palau") == 0);  // already there: same id, nothing added
  CHECK(v.size() == 2);
  CHECK(v.find("oceania") == 1);
  CHECK(v.name(1) == "oceania");
  CHECK(v.names() == std::vector<std::string>{"palau", "oceania"});
  CHECK_THROWS(v.name(2));
}

TEST_CASE("AtomHash agrees with ==") {
  ntp::AtomHash hash;
  const Atom a{0, {1, 2}}, same{0, {1, 2}}, swapped{0, {2, 1}}, other_predicate{1, {1, 2}};
  CHECK(a == same);
  CHECK(hash(a) == hash(same));
  CHECK(a != swapped);
  CHECK(a != other_predicate);
  // Not required for correctness, but a hash that ignores argument order
  // would put every symmetric pair in one bucket.
  CHECK(hash(a) != hash(swapped));
}

TEST_CASE("KnowledgeBase::add_fact drops duplicates and keeps first-seen order") {
  KnowledgeBase kb;
  const int p = kb.predicates.intern("locatedIn");
  const int a = kb.constants.intern("palau"), b = kb.constants.intern("micronesia"), c = kb.constants.intern("oceania");
  CHECK(kb.add_fact({p, {a, b}}));
  CHECK(kb.add_fact({p, {b, c}}));
  CHECK_FALSE(kb.add_fact({p, {a, b}}));
  CHECK(kb.add_fact({p, {b, a}}));
  REQUIRE(kb.facts.size() == 3);
  CHECK(kb.facts[0] == Atom{p, {a, b}});
  CHECK(kb.facts[1] == Atom{p, {b, c}});
  CHECK(kb.facts[2] == Atom{p, {b, a}});
  CHECK(kb.contains({p, {b, c}}));
  CHECK_FALSE(kb.contains({p, {a, c}}));
}

TEST_CASE("to_string prints atoms and templates") {
  KnowledgeBase kb;
  const int p = kb.predicates.intern("locatedIn");
  const int a = kb.constants.intern("palau"), b = kb.constants.intern("oceania");
  CHECK(ntp::to_string(kb, Atom{p, {a, b}}) == "locatedIn(palau, oceania)");

  // #1(X, europe) :- locatedIn(X, Y), #2(Y, Y)
  const int europe = kb.constants.intern("europe");
  ntp::Template t;
  t.head = {{true, 0}, {{true, 0}, {false, europe}}};
  t.body = {{{false, p}, {{true, 0}, {true, 1}}}, {{true, 1}, {{true, 1}, {true, 1}}}};
  t.num_slots = 2;
  t.slot_names = {"#1", "#2"};
  t.num_variables = 2;
  t.variable_names = {"X", "Y"};
  CHECK(ntp::to_string(kb, t) == "#1(X, europe) :- locatedIn(X, Y), #2(Y, Y)");
}
