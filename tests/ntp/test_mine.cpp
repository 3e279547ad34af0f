// tests/ntp/test_mine.cpp: the rule miner against counts by hand and by brute
// force, its sampling and stop flag, and the rules file written and read back.
#include <doctest/doctest.h>

#include "autodiff/ops.h"
#include "kb_from_text.h"
#include "ntp/kb/parse.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/relation_graph.h"
#include "ntp/mine/rules_file.h"
#include "ntp/model/model.h"
#include "ntp/model/rules.h"
#include "ntp/train/training_data.h"

#include <omp.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <sstream>

using ntp::MinedRule;
using ntp::MineOptions;

namespace {

// Everything with at least one supporting pair, nothing sampled.
MineOptions count_everything() {
  MineOptions o;
  o.min_support = 1;
  o.min_head_coverage = 0;
  o.min_confidence = 0;
  o.max_candidates_per_head = 1'000'000;
  o.max_body_work = 1e18;
  o.constant_rules = false;  // test_constant_rules.cpp
  return o;
}

const MinedRule* find_rule(const std::vector<MinedRule>& rules, const ntp::KnowledgeBase& kb, const std::string& text) {
  for (const MinedRule& r : rules)
    if (ntp::rule_text(kb, r) == text) return &r;
  return nullptr;
}

// A random binary KB: `facts` facts over `constants` constants and `predicates` predicates.
ntp::KnowledgeBase random_kb(unsigned seed, int constants, int predicates, int facts) {
  std::mt19937 rng(seed);
  ntp::KnowledgeBase kb;
  for (int p = 0; p < predicates; ++p) kb.predicates.intern("p" + std::to_string(p));
  for (int c = 0; c < constants; ++c) kb.constants.intern("c" + std::to_string(c));
  std::uniform_int_distribution<int> pick_p(0, predicates - 1), pick_c(0, constants - 1);
  for (int i = 0; i < facts; ++i) kb.add_fact({pick_p(rng), {pick_c(rng), pick_c(rng)}});
  return kb;
}

// The reference: a rule's counts by trying every x, y (and z) one by one.
struct Counted {
  long long support = 0, pairs = 0, pca = 0;
};
bool holds(const ntp::KnowledgeBase& kb, int step, int a, int b) {
  const int r = ntp::step_relation(step);
  return ntp::is_backward(step) ? kb.contains({r, {b, a}}) : kb.contains({r, {a, b}});
}
Counted brute_force(const ntp::KnowledgeBase& kb, int head, const std::vector<int>& body) {
  const int n = kb.constants.size();
  std::set<int> subjects, objects;
  for (const ntp::Atom& f : kb.facts)
    if (f.predicate == head) subjects.insert(f.args[0]), objects.insert(f.args[1]);
  const bool by_subject = subjects.size() >= objects.size();
  Counted c;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y) {
      if (x == y) continue;
      bool connected = body.size() == 1 && holds(kb, body[0], x, y);
      for (int z = 0; z < n && body.size() == 2 && !connected; ++z)
        connected = z != x && z != y && holds(kb, body[0], x, z) && holds(kb, body[1], z, y);
      for (int z1 = 0; z1 < n && body.size() == 3 && !connected; ++z1)
        for (int z2 = 0; z2 < n && !connected; ++z2)
          connected = z1 != x && z1 != y && z2 != x && z2 != y && z1 != z2 && holds(kb, body[0], x, z1) &&
                      holds(kb, body[1], z1, z2) && holds(kb, body[2], z2, y);
      if (!connected) continue;
      ++c.pairs;
      c.support += kb.contains({head, {x, y}});
      c.pca += by_subject ? subjects.count(x) : objects.count(y);
    }
  return c;
}

}  // namespace

TEST_CASE("mine_rules counts support, pairs and AMIE's measures as worked by hand") {
  // q is p backwards on two of three pairs; r closes the chain p, p once.
  const auto kb = kb_from_text("p(a, b). p(b, c). p(c, d). q(b, a). q(c, b). r(a, c). r(b, e).");
  const auto result = ntp::mine_rules(kb, count_everything());
  const MinedRule* inverse = find_rule(result.rules, kb, "q(X, Y) :- p(Y, X)");
  REQUIRE(inverse != nullptr);
  CHECK(inverse->support == 2);
  CHECK(inverse->body_pairs == 3);  // (b, a), (c, b), (d, c)
  CHECK(inverse->head_coverage == doctest::Approx(1.0));
  CHECK(inverse->confidence == doctest::Approx(2.0 / 3));
  // q has 2 subjects and 2 objects: PCA by subject; d has no q fact.
  CHECK(inverse->pca_pairs == 2);
  CHECK(inverse->pca_confidence == doctest::Approx(1.0));
  const MinedRule* chain = find_rule(result.rules, kb, "r(X, Y) :- p(X, Z), p(Z, Y)");
  REQUIRE(chain != nullptr);
  CHECK(chain->support == 1);
  CHECK(chain->body_pairs == 2);  // (a, c), (b, d)
  CHECK(chain->head_coverage == doctest::Approx(0.5));
  CHECK(chain->confidence == doctest::Approx(0.5));
  CHECK_FALSE(chain->estimated);
  // A fact never supports a rule through itself.
  CHECK(find_rule(result.rules, kb, "p(X, Y) :- p(X, Y)") == nullptr);
}

// Every body of up to `atoms` steps over `predicates` relations.
std::vector<std::vector<int>> every_body(int predicates, int atoms) {
  std::vector<std::vector<int>> bodies{{}}, longer;
  std::vector<std::vector<int>> all;
  for (int length = 1; length <= atoms; ++length) {
    longer.clear();
    for (const std::vector<int>& b : bodies)
      for (int step = 0; step < 2 * predicates; ++step) {
        longer.push_back(b);
        longer.back().push_back(step);
      }
    bodies = longer;
    all.insert(all.end(), bodies.begin(), bodies.end());
  }
  return all;
}

TEST_CASE("mine_rules equals brute force on random KBs, with one thread or two, chains of two and three") {
  for (unsigned seed = 0; seed < 36; ++seed) {
    CAPTURE(seed);
    // Most KBs with chains of two; a few, smaller, with chains of three.
    const bool three = seed >= 30;
    const int predicates = three ? 3 : 4;
    const auto kb = three ? random_kb(seed, 8, predicates, 30) : random_kb(seed, 9, predicates, 40);
    MineOptions options = count_everything();
    options.max_body_atoms = three ? 3 : 2;
    const auto result = ntp::mine_rules(kb, options);
    std::map<std::pair<int, std::vector<int>>, const MinedRule*> mined;
    for (const MinedRule& r : result.rules) mined[{r.head, r.body}] = &r;
    std::size_t expected = 0;
    const std::vector<std::vector<int>> bodies = every_body(predicates, options.max_body_atoms);
    for (int head = 0; head < predicates; ++head)
      for (const std::vector<int>& body : bodies) {
        if (body.size() == 1 && body[0] == ntp::forward_step(head)) continue;  // the head itself
        const Counted c = brute_force(kb, head, body);
        if (c.support == 0) continue;
        ++expected;
        const auto it = mined.find({head, body});
        REQUIRE(it != mined.end());
        CHECK(it->second->support == c.support);
        CHECK(it->second->body_pairs == doctest::Approx(static_cast<double>(c.pairs)));
        CHECK(it->second->pca_pairs == doctest::Approx(static_cast<double>(c.pca)));
      }
    CHECK(result.rules.size() == expected);
    if (three)
      CHECK(std::any_of(result.rules.begin(), result.rules.end(), [](const MinedRule& r) { return r.body.size() == 3; }));
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto alone = ntp::mine_rules(kb, options);
    omp_set_num_threads(threads);
    REQUIRE(alone.rules.size() == result.rules.size());
    for (std::size_t i = 0; i < alone.rules.size(); ++i) {
      CHECK(alone.rules[i].body == result.rules[i].body);
      CHECK(alone.rules[i].body_pairs == result.rules[i].body_pairs);
    }
  }
}

TEST_CASE("mine_rules keeps the thresholds: support, head coverage, rules per head, confidence") {
  const auto kb = random_kb(7, 12, 3, 80);
  const auto all = ntp::mine_rules(kb, count_everything());
  MineOptions o = count_everything();
  o.min_support = 3;
  o.min_head_coverage = 0.2;
  o.max_candidates_per_head = 3;
  o.rules_per_head = 2;
  o.min_confidence = 0.1;
  const auto kept = ntp::mine_rules(kb, o);
  std::map<int, int> per_head;
  for (const MinedRule& r : kept.rules) {
    CHECK(r.support >= 3);
    CHECK(r.head_coverage >= 0.2);
    CHECK(r.confidence >= 0.1);
    CHECK(++per_head[r.head] <= 2);
  }
  CHECK(kept.rules.size() < all.rules.size());
  // Highest confidence first within a head.
  for (std::size_t i = 1; i < kept.rules.size(); ++i)
    if (kept.rules[i].head == kept.rules[i - 1].head) CHECK(kept.rules[i].confidence <= kept.rules[i - 1].confidence);
}

TEST_CASE("mine_rules samples a body whose walk is too long, and says so") {
  const auto kb = random_kb(3, 400, 2, 6000);
  const auto exact = ntp::mine_rules(kb, count_everything());
  MineOptions o = count_everything();
  o.max_body_work = 2000;
  const auto sampled = ntp::mine_rules(kb, o);
  CHECK(sampled.estimated > 0);
  std::map<std::pair<int, std::vector<int>>, const MinedRule*> by_rule;
  for (const MinedRule& r : exact.rules) by_rule[{r.head, r.body}] = &r;
  int close = 0, compared = 0;
  for (const MinedRule& r : sampled.rules) {
    if (!r.estimated) continue;
    const MinedRule& truth = *by_rule.at({r.head, r.body});
    CHECK(truth.body_pairs > 0);
    ++compared;
    close += std::abs(r.body_pairs - truth.body_pairs) < 0.25 * truth.body_pairs;
  }
  REQUIRE(compared > 0);
  CHECK(close >= compared * 9 / 10);  // a sample of several thousand edges: rarely 25% off
}

TEST_CASE("mine_rules stops when asked and refuses bad options") {
  const auto kb = random_kb(1, 20, 3, 60);
  std::atomic<bool> stop{true};
  MineOptions o;
  o.stop = &stop;
  const auto result = ntp::mine_rules(kb, o);
  CHECK(result.stopped);
  CHECK(result.rules.empty());
  MineOptions bad;
  bad.max_body_atoms = 4;
  CHECK_THROWS_AS(ntp::mine_rules(kb, bad), std::invalid_argument);
  bad = MineOptions{};
  bad.min_confidence = 1.5;
  CHECK_THROWS_AS(ntp::mine_rules(kb, bad), std::invalid_argument);
}

TEST_CASE("mined rules are written and read back; the reader names file, line and column") {
  const auto kb = kb_from_text("p(a, b). p(b, c). p(c, d). q(b, a). q(c, b). r(a, c). r(b, e).");
  const auto mined = ntp::mine_rules(kb, count_everything()).rules;
  std::stringstream file;
  ntp::write_mined_rules(file, kb, mined);
  const auto read = ntp::read_mined_rules(file, "rules.tsv", kb);
  REQUIRE(read.size() == mined.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    CHECK(read[i].head == mined[i].head);
    CHECK(read[i].body == mined[i].body);
    CHECK(read[i].support == mined[i].support);
    CHECK(read[i].confidence == doctest::Approx(mined[i].confidence).epsilon(1e-4));
  }
  auto error = [&](const std::string& text) {
    std::istringstream in(text);
    try {
      ntp::read_mined_rules(in, "rules.tsv", kb);
    } catch (const ntp::ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("% comment\n0.5\t0.5\t0.5\t2\n") == "rules.tsv:2: expected 6 tab-separated fields (confidence, pca_confidence, "
                                                   "head_coverage, support, body_pairs, rule), found 4");
  CHECK(error("0.5\tx\t0.5\t2\t4\tq(X, Y) :- p(Y, X)\n") == "rules.tsv:1:5: bad pca_confidence 'x' (expected a number >= 0)");
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(X, Y) :- s(Y, X)\n").find("rules.tsv:1:28: unknown predicate 's'") == 0);
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(X, Y) :- p(X, Z)\n").find("rules.tsv:1:17: not a mined rule") == 0);
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(X, Y) :- p(X, Z), p(Z, X), p(X, Y)\n").find("not a mined rule") != std::string::npos);
  // Rules with a constant (test_constant_rules.cpp): constants the KB knows, V in the head and in the body.
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(X, a) :- p(X, nowhere)\n").find("rules.tsv:1:") == 0);
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(X, a) :- p(Y, b)\n").find("not a mined rule") != std::string::npos);
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(b, a) :- p(b, c)\n").find("not a mined rule") != std::string::npos);
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(X, a) :- p(X, b), p(X, c)\n").find("not a mined rule") != std::string::npos);
  CHECK(error("0.5\t0.5\t0.5\t2\t4\tq(X, a) :- p(X, b)\n") == "no error");
}

TEST_CASE("a mined rules file is read as rules, not templates, by its extension or by the header ntp mine writes") {
  const std::string dir = std::string(NTP_BINARY_DIR) + "/";
  const std::string facts = "p(a, b). p(b, c). p(c, d). q(b, a). q(c, b). r(a, c). r(b, e).";
  std::ofstream(dir + "test_mined_facts.nl") << facts << "\n";
  const auto kb = kb_from_text(facts);
  const auto mined = ntp::mine_rules(kb, count_everything()).rules;
  for (const std::string name : {"test_mined_rules.tsv", "test_mined_rules.nl"}) {
    ntp::save_mined_rules(dir + name, kb, mined);
    CHECK(ntp::is_mined_rules_file(dir + name));
    const ntp::TrainingData data = ntp::read_training_data(dir + "test_mined_facts.nl", dir + name);
    REQUIRE(data.kb.templates.size() == mined.size());
    CHECK(data.kb.templates[0].slot_starts.size() == 1 + mined[0].body.size());
  }
  std::ofstream(dir + "test_templates.nlt") << "2  #1(X, Y) :- #2(Y, X).\n";
  CHECK_FALSE(ntp::is_mined_rules_file(dir + "test_templates.nlt"));
  CHECK(ntp::read_training_data(dir + "test_mined_facts.nl", dir + "test_templates.nlt").kb.templates.size() == 1);
}

TEST_CASE("a model started from mined rules: slots at their predicates, kept through a file, read with their origin") {
  const auto kb_facts = kb_from_text("p(a, b). p(b, c). p(c, d). q(b, a). q(c, b). r(a, c). r(b, e).");
  std::vector<MinedRule> rules = ntp::mine_rules(kb_facts, count_everything()).rules;
  const MinedRule* inverse = find_rule(rules, kb_facts, "q(X, Y) :- p(Y, X)");
  const MinedRule* chain = find_rule(rules, kb_facts, "r(X, Y) :- p(X, Z), p(Z, Y)");
  REQUIRE(inverse != nullptr);
  REQUIRE(chain != nullptr);
  ntp::KnowledgeBase kb = kb_facts;
  kb.templates = ntp::mined_templates({*inverse, *chain}, "rules.tsv");
  REQUIRE(kb.templates.size() == 2);
  CHECK(ntp::to_string(kb, kb.templates[1]) == "#1(X, Y) :- #2(X, Z), #3(Z, Y)");
  CHECK(kb.templates[1].slot_starts == std::vector<int>{2, 0, 0});  // r, p, p
  const ntp::Model m = ntp::make_model(kb, 6, ntp::ProverConfig{}, 3);
  // Rule 0's slots are rows P, P+1 (q, p); rule 1's rows P+2.. (r, p, p).
  const int P = m.num_kb_predicates;
  CHECK(m.predicates.value.row(P) == m.predicates.value.row(1));
  CHECK(m.predicates.value.row(P + 1) == m.predicates.value.row(0));
  CHECK(m.predicates.value.row(P + 2) == m.predicates.value.row(2));
  CHECK(m.predicates.value.row(P + 4) == m.predicates.value.row(0));
  CHECK(m.predicates.value.row(0) != m.predicates.value.row(1));
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_mined.ntp";
  ntp::save_model(m, path);
  const ntp::Model loaded = ntp::load_model(path);
  CHECK(loaded.kb.templates[1].slot_starts == kb.templates[1].slot_starts);
  CHECK(loaded.kb.templates[0].mined_confidence == inverse->confidence);
  const auto read = ntp::induced_rules(loaded, 0.0);
  REQUIRE(read.size() == 2);
  for (const ntp::InducedRule& rule : read) {
    // Untrained: every slot on its predicate, the kernel at its clipped zero distance.
    CHECK(rule.confidence == ad::rbf_of_squared_distance(0.0));
    CHECK(rule.text == rule.started_from);
  }
  // A version 5 file loads: the same bytes without the last section (kb_facts has no template).
  const ntp::Model plain = ntp::make_model(kb_facts, 6, ntp::ProverConfig{}, 3);
  ntp::save_model(plain, path);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes[8] = 5;
  std::ofstream(path, std::ios::binary) << bytes;
  CHECK(ntp::load_model(path).constants.value == plain.constants.value);
}
