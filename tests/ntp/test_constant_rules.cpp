// tests/ntp/test_constant_rules.cpp: rules with a constant, h(X, c) :- r(X, d)
// and h(X, c) :- r(X, Z): counted by hand and against brute force, written,
// read and kept in a model file, and applied by the ranking (the reader's
// errors: test_mine.cpp).
#include <doctest/doctest.h>

#include "kb_from_text.h"
#include "rule_reference.h"
#include "ntp/eval/rule_ranking.h"
#include "ntp/kb/parse.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/relation_graph.h"
#include "ntp/mine/rules_file.h"
#include "ntp/model/model.h"

#include <omp.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

using ntp::MinedRule;

namespace {

ntp::MineOptions every_constant_rule() {
  ntp::MineOptions o;
  o.min_support = 1;
  o.min_head_coverage = 0;
  o.min_confidence = 0;
  o.constant_rules = true;
  return o;
}

const MinedRule* find_rule(const std::vector<MinedRule>& rules, const ntp::KnowledgeBase& kb, const std::string& text) {
  for (const MinedRule& r : rules)
    if (ntp::rule_text(kb, r) == text) return &r;
  return nullptr;
}

// Counts of the rule "head step hs into c, body step from V to d (-1: anything)" by trying every V.
struct Counted {
  long long support = 0, pairs = 0, pca = 0;
};
Counted brute_force(const ntp::KnowledgeBase& kb, int hs, int c, int step, int d) {
  const int n = kb.constants.size();
  Counted k;
  for (int v = 0; v < n; ++v) {
    if (v == c) continue;
    bool body = false, on_side = false;
    for (int z = 0; z < n; ++z) {
      body = body || ((d < 0 || z == d) && holds(kb, step, v, z));
      on_side = on_side || holds(kb, hs, v, z);
    }
    if (!body) continue;
    ++k.pairs;
    k.pca += on_side;
    k.support += holds(kb, hs, v, c);
  }
  return k;
}

}  // namespace

TEST_CASE("rules with a constant: support, pairs and PCA as worked by hand") {
  // a and b live in paris and work at acme; d works at acme and lives in rome; e works at zeta.
  const auto kb = kb_from_text("livesIn(a, paris). livesIn(b, paris). livesIn(d, rome). worksAt(a, acme). "
                               "worksAt(b, acme). worksAt(d, acme). worksAt(e, zeta).");
  const auto rules = ntp::mine_rules(kb, every_constant_rule()).rules;
  const MinedRule* r = find_rule(rules, kb, "livesIn(X, paris) :- worksAt(X, acme)");
  REQUIRE(r != nullptr);
  CHECK(r->support == 2);    // a, b
  CHECK(r->body_pairs == 3);  // a, b, d
  CHECK(r->pca_pairs == 3);   // all three live somewhere
  CHECK(r->confidence == doctest::Approx(2.0 / (3 + ntp::kConstantRulePrior)));  // 5 more pairs counted against it
  CHECK(r->pca_confidence == doctest::Approx(2.0 / (3 + ntp::kConstantRulePrior)));
  CHECK(r->head_coverage == doctest::Approx(2.0 / 3));
  // With Z free: the four who work somewhere; e lives nowhere (PCA leaves it out).
  const MinedRule* free = find_rule(rules, kb, "livesIn(X, paris) :- worksAt(X, Z)");
  REQUIRE(free != nullptr);
  CHECK(free->body_pairs == 4);
  CHECK(free->pca_pairs == 3);
  CHECK(free->confidence == doctest::Approx(2.0 / (4 + ntp::kConstantRulePrior)));
  CHECK(free->pca_confidence == doctest::Approx(2.0 / (3 + ntp::kConstantRulePrior)));
  // The constant on the subject side: who works at acme, from where they live.
  const MinedRule* subject = find_rule(rules, kb, "worksAt(Y, acme) :- livesIn(Y, paris)");
  CHECK(subject == nullptr);  // the head's constant is its second argument here: written h(X, c)
  CHECK(find_rule(rules, kb, "worksAt(X, acme) :- livesIn(X, paris)") != nullptr);
  CHECK(find_rule(rules, kb, "livesIn(X, paris) :- livesIn(X, Z)") == nullptr);  // the head's own step, with Z free
  // Off by default.
  ntp::MineOptions chains = every_constant_rule();
  chains.constant_rules = false;
  for (const MinedRule& rule : ntp::mine_rules(kb, chains).rules) CHECK_FALSE(ntp::has_constant(rule));
}

TEST_CASE("rules with a constant equal brute force on random KBs, with one thread or two") {
  for (unsigned seed = 0; seed < 20; ++seed) {
    CAPTURE(seed);
    const int predicates = 3;  // random_split's
    std::vector<ntp::Atom> held_out;
    const auto kb = random_split(seed, 9, 45, 1 << 30, held_out);  // only the first draw held out
    const auto result = ntp::mine_rules(kb, every_constant_rule());
    std::map<std::tuple<int, int, int, int>, const MinedRule*> mined;  // (head step, c, body step, d)
    for (const MinedRule& r : result.rules) {
      if (!ntp::has_constant(r)) continue;
      const int hs = r.constant_arg == 1 ? ntp::forward_step(r.head) : ntp::backward_step(r.head);
      CHECK(mined.emplace(std::make_tuple(hs, r.head_constant, r.body.front(), r.body_constant), &r).second);
    }
    CHECK(static_cast<long long>(mined.size()) == result.with_constant);
    std::size_t expected = 0;
    for (int hs = 0; hs < 2 * predicates; ++hs)
      for (int c = 0; c < kb.constants.size(); ++c)
        for (int step = 0; step < 2 * predicates; ++step)
          for (int d = -1; d < kb.constants.size(); ++d) {
            if (step == hs && (d < 0 || d == c)) continue;  // the head itself
            const Counted k = brute_force(kb, hs, c, step, d);
            if (k.support == 0) continue;
            ++expected;
            const auto it = mined.find({hs, c, step, d});
            REQUIRE(it != mined.end());
            CHECK(it->second->support == k.support);
            CHECK(it->second->body_pairs == doctest::Approx(static_cast<double>(k.pairs)));
            CHECK(it->second->pca_pairs == doctest::Approx(static_cast<double>(k.pca)));
          }
    CHECK(mined.size() == expected);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto alone = ntp::mine_rules(kb, every_constant_rule());
    omp_set_num_threads(threads);
    REQUIRE(alone.rules.size() == result.rules.size());
    for (std::size_t i = 0; i < alone.rules.size(); ++i) CHECK(ntp::rule_text(kb, alone.rules[i]) == ntp::rule_text(kb, result.rules[i]));
  }
}

TEST_CASE("rules with a constant keep min support and confidence, and leave out constants named as variables") {
  auto kb = kb_from_text("livesIn(a, paris). livesIn(b, paris). livesIn(d, rome). worksAt(a, acme). "
                         "worksAt(b, acme). worksAt(d, acme). worksAt(e, zeta).");
  const int big = kb.constants.intern("Big");  // a name the readers take for a variable
  for (const char* who : {"a", "b"}) kb.add_fact({kb.predicates.find("worksAt"), {kb.constants.find(who), big}});
  ntp::MineOptions o = every_constant_rule();
  o.min_support = 2;
  o.min_confidence = 0.2;
  const auto rules = ntp::mine_rules(kb, o).rules;
  for (const MinedRule& r : rules) {
    CHECK(r.support >= 2);
    CHECK(r.confidence >= 0.2);
    CHECK(ntp::rule_text(kb, r).find("Big") == std::string::npos);
  }
  CHECK(find_rule(rules, kb, "livesIn(X, paris) :- worksAt(X, acme)") != nullptr);
}

TEST_CASE("rules with a constant are written, read back and kept in a model file") {
  const auto kb = kb_from_text("livesIn(a, paris). livesIn(b, paris). livesIn(d, rome). worksAt(a, acme). "
                               "worksAt(b, acme). worksAt(d, acme). worksAt(e, zeta).");
  const auto mined = ntp::mine_rules(kb, every_constant_rule()).rules;
  std::stringstream file;
  ntp::write_mined_rules(file, kb, mined);
  const auto read = ntp::read_mined_rules(file, "rules.tsv", kb);
  REQUIRE(read.size() == mined.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    CHECK(ntp::rule_text(kb, read[i]) == ntp::rule_text(kb, mined[i]));
    CHECK(std::tie(read[i].constant_arg, read[i].head_constant, read[i].body_constant) ==
          std::tie(mined[i].constant_arg, mined[i].head_constant, mined[i].body_constant));
  }
  CHECK(mined_templates(mined, "rules.tsv").size() ==
        static_cast<std::size_t>(std::count_if(mined.begin(), mined.end(), [](const MinedRule& r) { return !ntp::has_constant(r); })));
  ntp::Model m = ntp::make_model(kb, 4, ntp::ProverConfig{}, 1);
  m.mined_rules = mined;
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_constant_rules.ntp";
  ntp::save_model(m, path);
  const ntp::Model loaded = ntp::load_model(path);
  REQUIRE(loaded.mined_rules.size() == mined.size());
  for (std::size_t i = 0; i < mined.size(); ++i) CHECK(ntp::rule_text(kb, loaded.mined_rules[i]) == ntp::rule_text(kb, mined[i]));
}

TEST_CASE("a prediction names its most confident rule, chain rule or rule with a constant") {
  int from_constant_rules = 0;
  for (unsigned seed = 0; seed < 8; ++seed) {
    CAPTURE(seed);
    std::vector<ntp::Atom> test;
    const ntp::KnowledgeBase kb = random_split(seed, 12, 70, 7, test);
    const auto rules = mine_every_rule(kb, 2, true);
    const ntp::RelationGraph graph(kb);
    for (const ntp::Atom& atom : test)
      for (int open = 0; open < 2; ++open)
        for (const ntp::RulePrediction& p : ntp::predict_by_rules(graph, rules, atom, open)) {
          REQUIRE(!p.confidences.empty());
          CHECK(std::is_sorted(p.confidences.rbegin(), p.confidences.rend()));
          const MinedRule& best = rules[p.best_rule];
          CHECK(best.confidence == p.confidences.front());
          const int x = open == 1 ? atom.args[0] : p.constant, y = open == 1 ? p.constant : atom.args[1];
          CHECK(best.head == atom.predicate);
          CHECK(body_connects(kb, best, x, y));
          from_constant_rules += ntp::has_constant(best);
        }
  }
  CHECK(from_constant_rules > 0);
}
