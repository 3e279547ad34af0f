// tests/ntp/test_rule_ranking.cpp: ranking by mined rules against a one-by-one
// reference that checks every rule on every constant, under every aggregation.
#include <doctest/doctest.h>

#include "kb_from_text.h"
#include "rule_reference.h"
#include "ntp/eval/rule_ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/model/model.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/relation_graph.h"
#include "ntp/train/rule_choice.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <random>

namespace {

// A model's score for tests: a fixed function of the atom, with ties (5 values).
double fake_score(const ntp::Atom& a) { return static_cast<double>((a.args[0] * 7 + a.args[1] * 3 + a.predicate) % 5); }

// The reference rank: every constant's predictions, compared one by one
// (then, with `scores`, by fake_score).
double reference_rank(const ntp::KnowledgeBase& kb, const std::vector<ntp::MinedRule>& rules, const ntp::Atom& atom,
                      int open, const std::unordered_set<ntp::Atom, ntp::AtomHash>& known, ntp::RuleAggregation how,
                      bool scores = false) {
  auto prediction = [&](int c) {
    std::vector<double> conf;
    for (const ntp::MinedRule& r : rules) {
      if (r.head != atom.predicate) continue;
      const int x = open == 1 ? atom.args[0] : c, y = open == 1 ? c : atom.args[1];
      if (!body_connects(kb, r, x, y)) continue;
      conf.push_back(r.confidence * (how == ntp::RuleAggregation::Paths ? path_share(kb, r, x, y, open) : 1.0));
    }
    std::sort(conf.rbegin(), conf.rend());
    if (how == ntp::RuleAggregation::Max) return conf;
    double miss = 1;
    for (double v : conf) miss *= 1 - v;
    return conf.empty() ? std::vector<double>{} : std::vector<double>{1 - miss};
  };
  const int truth = atom.args[static_cast<std::size_t>(open)];
  const std::vector<double> t = prediction(truth);
  double above = 0, equal = 0;
  for (int c = 0; c < kb.constants.size(); ++c) {
    ntp::Atom corrupted = atom;
    corrupted.args[static_cast<std::size_t>(open)] = c;
    if (c == truth || known.count(corrupted)) continue;
    std::vector<double> p = prediction(c);
    std::vector<double> mine = t;
    if (scores) {  // the model's score after the rules' list, which it only breaks ties of
      const double s_c = fake_score(corrupted), s_t = fake_score(atom);
      if (p == t) p = {s_c}, mine = {s_t};
    }
    // Lexicographic, a longer list winning an equal prefix; empty = unpredicted.
    if (std::lexicographical_compare(mine.begin(), mine.end(), p.begin(), p.end())) above += 1;
    else if (p == mine) equal += 1;
  }
  return 1 + above + equal / 2;
}

}  // namespace

TEST_CASE("rank_by_rules equals the one-by-one reference on random KBs, max, noisy-or and paths, ties left or broken "
          "by a model, rules with a constant or not") {
  for (unsigned seed = 0; seed < 12; ++seed) {
    CAPTURE(seed);
    std::vector<ntp::Atom> test;
    const ntp::KnowledgeBase kb = random_split(seed, 12, 70, 7, test);
    // Chains of three on a third of the KBs, rules with a constant on half of them.
    const auto rules = mine_every_rule(kb, seed % 3 == 2 ? 3 : 2, seed % 2 == 1);
    if (seed % 2 == 1) CHECK(std::any_of(rules.begin(), rules.end(), [](const ntp::MinedRule& r) { return ntp::has_constant(r); }));
    REQUIRE(!rules.empty());
    std::unordered_set<ntp::Atom, ntp::AtomHash> known(kb.facts.begin(), kb.facts.end());
    known.insert(test.begin(), test.end());
    for (auto how : {ntp::RuleAggregation::Max, ntp::RuleAggregation::NoisyOr, ntp::RuleAggregation::Paths}) {
      ntp::RuleRankingOptions o;
      o.aggregation = how;
      const ntp::RankingResult result = ntp::rank_by_rules(kb, rules, test, known, o);
      REQUIRE(result.ranks.size() == 2 * test.size());
      for (const ntp::SideRank& s : result.ranks)
        CHECK(s.mean == doctest::Approx(reference_rank(kb, rules, test[s.triple], s.side, known, how)));
      o.tie_scores = [&](const ntp::Atom& atom, int open) {
        std::vector<double> all;
        for (int c = 0; c < kb.constants.size(); ++c) {
          ntp::Atom a = atom;
          a.args[static_cast<std::size_t>(open)] = c;
          all.push_back(fake_score(a));
        }
        return all;
      };
      const ntp::RankingResult broken = ntp::rank_by_rules(kb, rules, test, known, o);
      for (const ntp::SideRank& s : broken.ranks)
        CHECK(s.mean == doctest::Approx(reference_rank(kb, rules, test[s.triple], s.side, known, how, true)));
    }
  }
}

TEST_CASE("rank_rules_first equals rank_by_rules with the model's keys breaking the rules' ties") {
  int moved = 0;  // sides whose rank the model's keys changed
  for (unsigned seed = 0; seed < 8; ++seed) {
    CAPTURE(seed);
    std::vector<ntp::Atom> test;
    ntp::KnowledgeBase kb = random_split(seed, 12, 70, 7, test);
    const auto templates = kb_from_text("p0(a, b).", "2 #1(X, Y) :- #2(Y, X).\n1 #1(X, Y) :- #2(X, Z), #3(Z, Y).");
    kb.templates = templates.templates;
    ntp::ProverConfig prover;
    prover.complex = seed % 2 == 0;  // an NTPλ model, or the proofs alone
    prover.k_facts = seed % 4 < 2 ? 1 : 0;
    const ntp::Model model = ntp::make_model(kb, 6, prover, seed);
    const auto rules = mine_every_rule(model.kb, seed % 2 == 0 ? 1 : 2);  // one-atom rules leave many constants unpredicted
    REQUIRE(!rules.empty());
    std::unordered_set<ntp::Atom, ntp::AtomHash> known(kb.facts.begin(), kb.facts.end());
    known.insert(test.begin(), test.end());
    ntp::ScoreOptions scoring;
    scoring.facts = ntp::make_fact_index(model, "exact");
    scoring.tie_break = seed % 3 != 0;
    for (auto how : {ntp::RuleAggregation::Max, ntp::RuleAggregation::NoisyOr, ntp::RuleAggregation::Paths}) {
      // The reference: every constant scored, its key turned into its place
      // among the side's distinct keys (a number rank_by_rules can compare).
      ntp::RuleRankingOptions o;
      o.aggregation = how;
      o.tie_scores = [&](const ntp::Atom& atom, int open) {
        std::vector<ntp::Atom> atoms(static_cast<std::size_t>(model.kb.constants.size()), atom);
        for (std::size_t c = 0; c < atoms.size(); ++c) atoms[c].args[static_cast<std::size_t>(open)] = static_cast<int>(c);
        const std::vector<ntp::RankKey> keys = ntp::rank_keys(model, atoms, scoring);
        std::vector<ntp::RankKey> sorted = keys;
        std::sort(sorted.begin(), sorted.end(), [](const ntp::RankKey& a, const ntp::RankKey& b) { return b > a; });
        std::vector<double> order;  // each key's place among the distinct keys: equal keys, equal places
        for (const ntp::RankKey& k : keys)
          order.push_back(static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), k, [](const ntp::RankKey& a, const ntp::RankKey& b) { return b > a; }) - sorted.begin()));
        return order;
      };
      const ntp::RankingResult expected = ntp::rank_by_rules(model.kb, rules, test, known, o);
      ntp::RankingResult alone;
      const ntp::RankingResult got = ntp::rank_rules_first(model, rules, test, known, scoring, how, {}, &alone);
      REQUIRE(got.ranks.size() == expected.ranks.size());
      for (std::size_t i = 0; i < got.ranks.size(); ++i) {
        CAPTURE(i);
        CHECK(got.ranks[i].mean == doctest::Approx(expected.ranks[i].mean));
        CHECK(got.ranks[i].optimistic == doctest::Approx(expected.ranks[i].optimistic));
      }
      CHECK(alone.mean_ties.mrr == doctest::Approx(ntp::evaluate_ranking(model, test, known, scoring).mean_ties.mrr));
      o.tie_scores = nullptr;
      const ntp::RankingResult rules_alone = ntp::rank_by_rules(model.kb, rules, test, known, o);
      for (std::size_t i = 0; i < got.ranks.size(); ++i) moved += got.ranks[i].mean != rules_alone.ranks[i].mean;
    }
  }
  CHECK(moved > 20);
}

TEST_CASE("rank_with_rule_evidence adds each weight times the best rule's confidence (paths: the aggregate) to the "
          "model's score") {
  for (unsigned seed = 0; seed < 6; ++seed) {
    CAPTURE(seed);
    std::vector<ntp::Atom> test;
    ntp::KnowledgeBase kb = random_split(seed, 12, 70, 7, test);
    kb.templates = kb_from_text("p0(a, b).", "2 #1(X, Y) :- #2(Y, X).").templates;
    ntp::ProverConfig prover;
    prover.complex = seed % 2 == 0;
    const ntp::Model model = ntp::make_model(kb, 6, prover, seed);
    const auto rules = mine_every_rule(model.kb, 2, seed % 2 == 1);  // half with rules with a constant
    std::unordered_set<ntp::Atom, ntp::AtomHash> known(kb.facts.begin(), kb.facts.end());
    known.insert(test.begin(), test.end());
    ntp::ScoreOptions scoring;
    scoring.facts = ntp::make_fact_index(model, "exact");
    const std::vector<double> weights{0.5, 2};
    const bool by_paths = seed % 3 == 0;
    const auto how = by_paths ? ntp::RuleAggregation::Paths : ntp::RuleAggregation::Max;
    const auto results = ntp::rank_with_rule_evidence(model, rules, weights, test, known, scoring, how);
    REQUIRE(results.size() == 2);
    for (std::size_t w = 0; w < weights.size(); ++w)
      for (const ntp::SideRank& side : results[w].ranks) {
        // The reference: every constant's key, its best rule's confidence by the one-by-one walk.
        const ntp::Atom& atom = test[side.triple];
        std::vector<ntp::Atom> atoms(static_cast<std::size_t>(kb.constants.size()), atom);
        for (std::size_t c = 0; c < atoms.size(); ++c) atoms[c].args[static_cast<std::size_t>(side.side)] = static_cast<int>(c);
        const std::vector<ntp::RankKey> keys = ntp::rank_keys(model, atoms, scoring);
        std::vector<ntp::RankKey> total = keys;
        for (std::size_t c = 0; c < atoms.size(); ++c) {
          double best = 0, miss = 1;
          for (const ntp::MinedRule& r : rules) {
            if (r.head != atom.predicate) continue;
            const int x = side.side == 1 ? atom.args[0] : static_cast<int>(c), y = side.side == 1 ? static_cast<int>(c) : atom.args[1];
            if (!body_connects(kb, r, x, y)) continue;
            best = std::max(best, r.confidence);
            miss *= 1 - r.confidence * path_share(kb, r, x, y, side.side);
          }
          total[c].score += weights[w] * (by_paths ? 1 - miss : best);
        }
        const std::size_t truth = static_cast<std::size_t>(atom.args[static_cast<std::size_t>(side.side)]);
        double above = 0, level = 0;
        for (std::size_t c = 0; c < atoms.size(); ++c) {
          if (c == truth || known.count(atoms[c])) continue;
          above += total[c] > total[truth], level += total[c] == total[truth];
        }
        CHECK(side.mean == doctest::Approx(1 + above + level / 2));
      }
  }
}

TEST_CASE("rank_by_rules: a symmetric rule ranks the mirror first; an unpredicted truth takes the mean rank") {
  // married(X, Y) :- married(Y, X) holds on two of its three pairs: confidence 2/3.
  const auto kb = kb_from_text("married(a, b). married(b, a). married(c, d). likes(e, f).");
  const auto rules = ntp::mine_rules(kb).rules;
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].confidence == doctest::Approx(2.0 / 3));
  const int married = 0, likes = 1, c = 2, d = 3, e = 4, f = 5;
  const std::vector<ntp::Atom> test = {{married, {d, c}}, {likes, {f, e}}};
  std::unordered_set<ntp::Atom, ntp::AtomHash> known(kb.facts.begin(), kb.facts.end());
  known.insert(test.begin(), test.end());
  const auto result = ntp::rank_by_rules(kb, rules, test, known);
  CHECK(result.ranks[0].mean == 1);  // married(?, c): d, by the rule from married(c, d)
  CHECK(result.ranks[1].mean == 1);  // married(d, ?): c
  CHECK(result.ranks[1].scored == 0);  // no constant but the truth is predicted
  // likes(f, ?): no rule; e ties with the 5 other constants (f itself included).
  CHECK(result.ranks[3].mean == doctest::Approx(1 + 5.0 / 2));
  CHECK(result.ranks[3].scored == 0);
  CHECK_THROWS_AS(ntp::rule_aggregation_from_name("sum"), std::invalid_argument);
}

TEST_CASE("clearly_better asks for a mean paired gain above two standard errors") {
  // Differences 0.1, 0.1, 0.1, 0.1: no spread, a clear gain.
  CHECK(ntp::clearly_better({0.6, 0.6, 0.6, 0.6}, {0.5, 0.5, 0.5, 0.5}));
  // Differences 0.3, -0.1, 0.3, -0.1: mean 0.1, standard error 0.115.
  CHECK_FALSE(ntp::clearly_better({0.8, 0.4, 0.8, 0.4}, {0.5, 0.5, 0.5, 0.5}));
  // Differences 0.21, 0.19 repeated: mean 0.2, standard error 0.00447.
  CHECK(ntp::clearly_better({0.71, 0.69, 0.71, 0.69, 0.71, 0.69}, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5}));
  CHECK_FALSE(ntp::clearly_better({0.5, 0.5}, {0.5, 0.5}));  // equal
  CHECK_FALSE(ntp::clearly_better({0.4, 0.4}, {0.5, 0.5}));  // worse
  CHECK_THROWS_AS(ntp::clearly_better({0.5}, {0.5}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::clearly_better({0.5, 0.5}, {0.5, 0.5, 0.5}), std::invalid_argument);
}

TEST_CASE("first_within_noise_of_best keeps the earliest candidate that the best does not clearly beat") {
  const std::vector<double> low{0.5, 0.5, 0.5, 0.5}, mid{0.59, 0.61, 0.59, 0.61}, high{0.62, 0.6, 0.62, 0.6};
  // The best clearly beats the first but not the second: the second is kept,
  // though it is not clearly better than the first either.
  CHECK(ntp::first_within_noise_of_best({low, mid, high}) == 1);
  CHECK(ntp::first_within_noise_of_best({mid, low, high}) == 0);
  CHECK(ntp::first_within_noise_of_best({low, high}) == 1);
  CHECK(ntp::first_within_noise_of_best({high, low}) == 0);
  CHECK(ntp::first_within_noise_of_best({low}) == 0);
  // A noisy gain is not enough: differences 0.3, -0.1, 0.3, -0.1.
  CHECK(ntp::first_within_noise_of_best({low, {0.8, 0.4, 0.8, 0.4}}) == 0);
  CHECK_THROWS_AS(ntp::first_within_noise_of_best({}), std::invalid_argument);
}

TEST_CASE("choose_rule_set keeps the first set of mined rules unless a later one ranks the dev atoms clearly better") {
  int chose_one_atom = 0, chose_chains = 0;
  for (unsigned seed = 0; seed < 12; ++seed) {
    CAPTURE(seed);
    std::vector<ntp::Atom> dev;
    const ntp::KnowledgeBase kb = random_split(seed + 100, 10, 60, 6, dev);
    ntp::MineOptions mine;
    mine.min_support = 1;
    mine.constant_rules = false;
    const auto chains = ntp::mine_rules(kb, mine).rules;
    mine.max_body_atoms = 1;
    const auto one_atom = ntp::mine_rules(kb, mine).rules;
    const ntp::RuleSetChoice choice = ntp::choose_rule_set(kb, {{"chains", chains}, {"one-atom", one_atom}}, dev);
    std::unordered_set<ntp::Atom, ntp::AtomHash> known(kb.facts.begin(), kb.facts.end());
    known.insert(dev.begin(), dev.end());
    auto reciprocals = [&](const std::vector<ntp::MinedRule>& rules) {
      std::vector<double> out;
      for (const ntp::SideRank& s : ntp::rank_by_rules(kb, rules, dev, known).ranks) out.push_back(1 / s.mean);
      return out;
    };
    const bool one = ntp::clearly_better(reciprocals(one_atom), reciprocals(chains));
    CHECK(choice.kept.size() == (one ? one_atom.size() : chains.size()));
    CHECK(choice.description.rfind(one ? "one-atom (dev mrr on " : "chains (dev mrr on ", 0) == 0);
    (one ? chose_one_atom : chose_chains) += 1;
    // The other order: the one-atom rules first, the chains kept only when clearly better.
    const ntp::RuleSetChoice reversed = ntp::choose_rule_set(kb, {{"one-atom", one_atom}, {"chains", chains}}, dev);
    CHECK(reversed.kept.size() == (ntp::clearly_better(reciprocals(chains), reciprocals(one_atom)) ? chains.size() : one_atom.size()));
  }
  CHECK(chose_one_atom > 0);  // both branches taken on these KBs
  CHECK(chose_chains > 0);
  const auto kb = kb_from_text("p(a, b). q(b, a).");
  CHECK_THROWS_AS(ntp::choose_rule_set(kb, {{"none", {}}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::choose_rule_set(kb, {}, {{0, {0, 1}}}), std::invalid_argument);
}

TEST_CASE("the rule rankings asked to give up end given up, without figures, every weight's and the model's alike") {
  std::vector<ntp::Atom> test;
  ntp::KnowledgeBase kb = random_split(1, 12, 70, 7, test);
  kb.templates = kb_from_text("p0(a, b).", "2 #1(X, Y) :- #2(Y, X).").templates;
  const ntp::Model model = ntp::make_model(kb, 6, ntp::ProverConfig{}, 1);
  const auto rules = mine_every_rule(model.kb, 2, false);
  std::unordered_set<ntp::Atom, ntp::AtomHash> known(kb.facts.begin(), kb.facts.end());
  known.insert(test.begin(), test.end());
  ntp::ScoreOptions scoring;
  scoring.facts = ntp::make_fact_index(model, "exact");
  REQUIRE(test.size() > 2);
  for (int after : {0, 1, 3}) {
    CAPTURE(after);
    std::atomic<int> asks{0};
    ntp::RankingOptions options;
    options.give_up = [&] { return ++asks > after; };
    const auto with_evidence = ntp::rank_with_rule_evidence(model, rules, {0.5, 2}, test, known, scoring,
                                                            ntp::RuleAggregation::Max, options);
    REQUIRE(with_evidence.size() == 2);
    for (const ntp::RankingResult& r : with_evidence) {
      CHECK(r.given_up);
      CHECK(r.ranks.empty());
    }
    asks = 0;
    ntp::RankingResult alone;
    const ntp::RankingResult first =
        ntp::rank_rules_first(model, rules, test, known, scoring, ntp::RuleAggregation::Max, options, &alone);
    CHECK(first.given_up);
    CHECK(alone.given_up);
    CHECK(first.ranks.empty());
  }
  // Asked and never told to: every side ranked.
  ntp::RankingOptions never;
  never.give_up = [] { return false; };
  const auto whole = ntp::rank_with_rule_evidence(model, rules, {0.5}, test, known, scoring, ntp::RuleAggregation::Max, never);
  CHECK_FALSE(whole.front().given_up);
  CHECK(whole.front().ranks.size() == 2 * test.size());
}
