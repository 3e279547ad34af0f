// Ranking through upper bounds (ntp/eval/ranking.h) against scoring every
// candidate one by one: on many random small KBs (the reference prover's
// cases: chains, inverses, repeated variables, unary predicates, fixed
// heads), at depth 1 and 2, k = 1 and k = 0, plain and NTPλ (mean and max),
// with plain or conditional rules,
// every rank of every test triple, both sides, must be the same; and the
// best answers must be the head of the full ranking.
#include "kb_from_text.h"
#include "reference_prover_cases.h"

#include "ntp/eval/ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/model/conditional.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <omp.h>
#include <random>
#include <string>

namespace {

// Binary facts of the case as test triples (ComplEx scores binary atoms
// only), and the rest of the facts as the filter.
struct Split {
  std::vector<ntp::Atom> test;
  std::unordered_set<ntp::Atom, ntp::AtomHash> known;
};

template <class Draw>
Split split_facts(Draw& draw, const ntp::Model& model) {
  Split s;
  for (const ntp::Atom& f : model.kb.facts) {
    if (f.args.size() == 2 && draw(3) == 0) s.test.push_back(f);
    else s.known.insert(f);
  }
  for (const ntp::Atom& t : s.test) s.known.insert(t);
  return s;
}

// Model settings drawn per case: depth, k, how the score is made, and how
// spread out the constants are (spread embeddings give sharp kernels, where
// the bounds prune most).
template <class Draw>
void draw_settings(Draw& draw, ntp::Model& model) {
  model.prover.depth = draw(4) == 0 ? 2 : 1;
  model.prover.k_facts = draw(2) == 0 ? 0 : 1;
  const int score = draw(4);
  model.prover.complex = score > 0;
  model.prover.combine = score == 1   ? ntp::Combine::Mean
                         : score == 2 ? ntp::Combine::Max
                         : score == 3 ? ntp::Combine::Complex
                                      : ntp::Combine::Proof;
  const double spread = 1.0 + draw(4);
  model.constants.value *= spread;
}

// What the random cases covered.
struct Coverage {
  long long sides = 0, scored = 0, capped_scored = 0, corruptions = 0, answers_checked = 0;
};

// Conditional rules (ntp/model/conditional.h) on a drawn model, with random
// reformulator weights so that every conditioned row differs.
void make_conditional(ntp::Model& model, int i) {
  std::mt19937 rng(static_cast<std::uint32_t>(50'000 + i));  // apart from the case's draws
  ntp::add_conditioning(model, i % 2 == 0 ? ntp::Reformulator::Linear : ntp::Reformulator::Attentive,
                        static_cast<std::uint64_t>(i));
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (ad::Index e = 0; e < model.conditioning.weights.value.size(); ++e)
    model.conditioning.weights.value.data()[e] = u(rng);
  ntp::refresh_conditioned_rows(model);
}

// A random case (reference_prover_cases.h) and its model with drawn
// settings, from generator seed `seed`; the generator goes on drawing.
struct DrawnCase {
  std::mt19937 rng;
  reference::Case text;
  ntp::Model model;

  DrawnCase(int seed, int i) : rng(static_cast<std::uint32_t>(seed)) {
    auto next = [this](int n) { return draw(n); };
    reference::CaseSizes sizes;
    sizes.max_dim = 4;
    text = reference::draw_case(next, sizes);
    model = reference::case_model(text, 2 * reference::draw_between(next, 1, 2), static_cast<std::uint64_t>(i));
    draw_settings(next, model);
  }
  int draw(int n) { return static_cast<int>(rng() % static_cast<std::uint32_t>(n)); }
};

// Case i: its test triples ranked three ways (one by one, through bounds,
// through bounds that give up early) must agree, and its best answers must
// head the full order.
void check_case(int i, bool conditional, Coverage& c) {
  DrawnCase drawn(1000 + i, i);
  auto draw = [&](int n) { return drawn.draw(n); };
  const reference::Case& text = drawn.text;
  ntp::Model& model = drawn.model;
  if (reference::affordable_goals(model, model.prover.depth, 4e5, 1) == 0) model.prover.depth = 1;
  if (conditional) make_conditional(model, i);
  const Split split = split_facts(draw, model);
  if (split.test.empty()) return;
  CAPTURE(i);
  CAPTURE(text.facts);
  CAPTURE(text.templates);
  ntp::RankingOptions one_by_one;
  one_by_one.one_by_one = true;
  const ntp::RankingResult slow = ntp::evaluate_ranking(model, split.test, split.known, {}, one_by_one);
  const ntp::RankingResult fast = ntp::evaluate_ranking(model, split.test, split.known);
  // Bound searches that give up (more constants scored directly, or all).
  ntp::RankingOptions small_budget;
  small_budget.max_bound_work = 20 + draw(200);
  const ntp::RankingResult capped = ntp::evaluate_ranking(model, split.test, split.known, {}, small_budget);
  REQUIRE(fast.ranks.size() == slow.ranks.size());
  REQUIRE(capped.ranks.size() == slow.ranks.size());
  for (std::size_t r = 0; r < fast.ranks.size(); ++r) {
    CAPTURE(r);
    CHECK(fast.ranks[r].mean == slow.ranks[r].mean);
    CHECK(fast.ranks[r].optimistic == slow.ranks[r].optimistic);
    CHECK(fast.ranks[r].tied == slow.ranks[r].tied);
    CHECK(fast.ranks[r].corruptions == slow.ranks[r].corruptions);
    CHECK(slow.ranks[r].scored == slow.ranks[r].corruptions);
    CHECK(capped.ranks[r].mean == slow.ranks[r].mean);
    CHECK(capped.ranks[r].optimistic == slow.ranks[r].optimistic);
    c.capped_scored += capped.ranks[r].scored;
    c.scored += fast.ranks[r].scored;
    c.corruptions += fast.ranks[r].corruptions;
    ++c.sides;
  }
  CHECK(fast.mean_ties.mrr == slow.mean_ties.mrr);

  // The best answers at the test triple's object: the head of the full order.
  const ntp::Atom& atom = split.test.front();
  const int top = 1 + draw(4);
  const std::vector<std::pair<int, ntp::RankKey>> best = ntp::best_constants(ntp::CandidateFinder(model, {}), atom, 1, top);
  std::vector<ntp::Atom> all(static_cast<std::size_t>(model.kb.constants.size()), atom);
  for (std::size_t k = 0; k < all.size(); ++k) all[k].args[1] = static_cast<int>(k);
  const std::vector<ntp::RankKey> keys = ntp::rank_keys(model, all, ntp::with_fact_index(model, {}));
  std::vector<int> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] > keys[b]; });
  REQUIRE(best.size() == std::min(all.size(), static_cast<std::size_t>(top)));
  for (std::size_t n = 0; n < best.size(); ++n) {
    CHECK(best[n].first == order[n]);
    CHECK(best[n].second == keys[static_cast<std::size_t>(order[n])]);
  }
  ++c.answers_checked;
}

}  // namespace

TEST_CASE("ranking through bounds gives the ranks of one-by-one ranking, on 300 random KBs") {
  omp_set_num_threads(1);
  Coverage c;
  for (int i = 0; i < 300; ++i) check_case(i, false, c);
  MESSAGE("sides ranked: " << c.sides << ", corruptions scored by the bounded ranking: " << c.scored << " of "
                           << c.corruptions << " (" << c.capped_scored << " with searches that gave up)");
  CHECK(c.capped_scored > c.scored);  // the small budget did make searches give up
  CHECK(c.sides > 300);
  CHECK(c.answers_checked > 100);
  CHECK(c.scored < c.corruptions);  // the bounds do leave candidates out
  omp_set_num_threads(omp_get_num_procs());
}

TEST_CASE("ranking through bounds is exact with conditional rules too, on 100 random KBs") {
  omp_set_num_threads(1);
  Coverage c;
  for (int i = 0; i < 100; ++i) check_case(i, true, c);
  MESSAGE("conditional: sides ranked: " << c.sides << ", corruptions scored by the bounded ranking: " << c.scored
                                         << " of " << c.corruptions);
  CHECK(c.sides > 100);
  CHECK(c.scored < c.corruptions);
  omp_set_num_threads(omp_get_num_procs());
}

TEST_CASE("list bounds hold every constant's proof score when every rule body is one atom, on random KBs") {
  omp_set_num_threads(1);
  int applicable = 0, not_applicable = 0, conditional = 0, deep = 0;
  long long checked = 0, below_half = 0, below_need = 0;
  for (int i = 0; i < 300; ++i) {
    DrawnCase drawn(7000 + i, i);
    auto draw = [&](int n) { return drawn.draw(n); };
    const reference::Case& text = drawn.text;
    ntp::Model& model = drawn.model;
    if (i % 3 == 0 && !model.rules.empty()) make_conditional(model, i);
    // Lists shorter than the KB, so that sites beyond them are bounded by the last one listed.
    const ntp::ConstantBalls balls(model, 1 + draw(6));
    const ntp::SlotBounds bounds(model, balls);
    CAPTURE(i);
    CAPTURE(text.facts);
    CAPTURE(text.templates);
    bool applies = false;
    for (const ntp::Atom& goal : model.kb.facts) {
      for (int slot = 0; slot < static_cast<int>(goal.args.size()); ++slot) {
        const std::optional<ntp::SlotBounds::Sites> sites = bounds.sites(goal, slot, bounds.argument_distances(goal, slot));
        if (!sites) continue;
        applies = true;
        const std::vector<double> bound = bounds.list_bounds(*sites);
        // With a need per constant: below it only when the score is.
        std::vector<double> need(bound.size());
        for (double& n : need) n = 0.05 * draw(25);  // up to 1.2: a need of 1 or more is out of reach
        const std::vector<double> reach = bounds.list_bounds(*sites, need);
        std::vector<ntp::Atom> atoms(static_cast<std::size_t>(model.kb.constants.size()), goal);
        for (std::size_t c = 0; c < atoms.size(); ++c) atoms[c].args[static_cast<std::size_t>(slot)] = static_cast<int>(c);
        ntp::ScoreOptions proofs;
        proofs.source = ntp::ScoreSource::ProofOnly;
        const std::vector<double> scores = ntp::score_atoms(model, atoms, proofs);
        for (std::size_t c = 0; c < atoms.size(); ++c) {
          CAPTURE(c);
          CHECK(scores[c] <= bound[c] + 1e-12);
          if (reach[c] < need[c]) CHECK(scores[c] < need[c] + 1e-12);
          below_half += bound[c] < 0.5 ? 1 : 0;
          below_need += reach[c] < need[c] ? 1 : 0;
          ++checked;
        }
      }
    }
    (applies ? applicable : not_applicable) += 1;
    if (applies && has_conditioning(model)) ++conditional;
    if (applies && model.prover.depth == 2) ++deep;
  }
  MESSAGE("list bounds: " << applicable << " KBs with one-atom bodies (" << not_applicable << " without), " << checked
                          << " constants checked, " << below_half << " bounded below 0.5, " << below_need
                          << " below their need; " << conditional << " conditional, " << deep << " at depth 2");
  CHECK(applicable > 50);
  CHECK(conditional > 10);  // rows conditioned on the goal's, through body_row
  CHECK(deep > 10);         // rules applied twice
  CHECK(not_applicable > 50);  // chains and repeated variables are refused
  CHECK(below_half > checked / 10);  // the bound does leave constants out
  CHECK(below_need > checked / 10);
  omp_set_num_threads(omp_get_num_procs());
}

TEST_CASE("proof floors hold every constant's proof score with an exact index, through one-atom rules too") {
  // Any rule set (the floors take the goal's own facts and, one rule down,
  // the rules with one-atom bodies; others are left out, which only lowers
  // the floor), depth 1 and 2, k = 1 and 0, plain and conditional rules.
  omp_set_num_threads(1);
  long long checked = 0, high = 0;
  for (int i = 0; i < 200; ++i) {
    DrawnCase drawn(9000 + i, i);
    ntp::Model& model = drawn.model;
    if (i % 3 == 0 && !model.rules.empty()) make_conditional(model, i);
    const ntp::ConstantBalls balls(model, 1 + drawn.draw(6));
    const ntp::SlotBounds bounds(model, balls);
    ntp::ScoreOptions proofs;
    proofs.source = ntp::ScoreSource::ProofOnly;
    proofs.facts = ntp::make_fact_index(model, "exact");
    CAPTURE(i);
    CAPTURE(drawn.text.facts);
    CAPTURE(drawn.text.templates);
    for (const ntp::Atom& goal : model.kb.facts) {
      for (int slot = 0; slot < static_cast<int>(goal.args.size()); ++slot) {
        const std::vector<double> floor = bounds.lower_bounds(goal, slot, bounds.argument_distances(goal, slot), *proofs.facts);
        std::vector<ntp::Atom> atoms(static_cast<std::size_t>(model.kb.constants.size()), goal);
        for (std::size_t c = 0; c < atoms.size(); ++c) atoms[c].args[static_cast<std::size_t>(slot)] = static_cast<int>(c);
        const std::vector<double> scores = ntp::score_atoms(model, atoms, proofs);
        for (std::size_t c = 0; c < atoms.size(); ++c) {
          CAPTURE(c);
          CHECK(scores[c] >= floor[c] - 1e-12);
          high += floor[c] >= 0.5 ? 1 : 0;
          ++checked;
        }
      }
    }
  }
  MESSAGE("proof floors: " << checked << " constants checked, " << high << " with a floor of at least 0.5");
  CHECK(high > checked / 20);  // the floors are not all trivially 0
  omp_set_num_threads(omp_get_num_procs());
}

TEST_CASE("a chain rule's floor: the prover's first fact, then the nearest fact of the second atom") {
  // p(a, ?) through p(X, Y) :- q(X, Z), r(Z, Y): the index gives q(a, m)
  // for q(a, Z), and r(m, b) is a fact, so p(a, b) has a proof whose every
  // kernel is 1. Asked p(?, b), the first atom holds the constant asked: a's
  // own fact q(a, m) is the nearest there, so a gets the same floor, and x,
  // which has no q fact of its own, none through the chain.
  ntp::KnowledgeBase kb = kb_from_text("q(a, m).\nr(m, b).\np(x, y).\nq(c, n).\nr(n, d).\n",
                                       "p(X, Y) :- q(X, Z), r(Z, Y).\n", true);
  ntp::Model model = ntp::make_model(kb, 10, ntp::ProverConfig{}, 3);
  model.constants.value *= 4.0;  // spread apart: unrelated constants far from each other
  const ntp::ConstantBalls balls(model, 2);
  const ntp::SlotBounds bounds(model, balls);
  const std::shared_ptr<ntp::FactIndex> facts = ntp::make_fact_index(model, "exact");
  const auto id = [&](const char* name) { return model.kb.constants.find(name); };
  const ntp::Atom goal{model.kb.predicates.find("p"), {id("a"), id("b")}};
  const std::vector<double> object = bounds.lower_bounds(goal, 1, bounds.argument_distances(goal, 1), *facts);
  CHECK(object[static_cast<std::size_t>(id("b"))] > 0.99);
  CHECK(object[static_cast<std::size_t>(id("d"))] < 0.5);  // through q(c, n), which p(a, Z) does not reach first
  const std::vector<double> subject = bounds.lower_bounds(goal, 0, bounds.argument_distances(goal, 0), *facts);
  CHECK(subject[static_cast<std::size_t>(id("a"))] > 0.99);
  CHECK(subject[static_cast<std::size_t>(id("x"))] < 0.5);
  CHECK(subject[static_cast<std::size_t>(id("c"))] < 0.5);  // q(c, n), but r(n, d), not r(n, b)
  ntp::ScoreOptions proofs;
  proofs.source = ntp::ScoreSource::ProofOnly;
  proofs.facts = facts;
  CHECK(ntp::score_atoms(model, {goal}, proofs)[0] >= object[static_cast<std::size_t>(id("b"))] - 1e-12);
}

TEST_CASE("a slot-first chain's floor only where the constant's own fact is surely the nearest") {
  // Asked p(?, b), the prover proves q(a, Z) by the nearest fact of key
  // (q, a): a2 lies next to a, so that is q(a2, m), not a's own s(a, k),
  // whose predicate s lies 0.5 from q; and r(m, b) is no fact. A floor read
  // off a's own fact (through r(k, b)) would be k(0.25) = 0.61, above the
  // proof the prover finds.
  ntp::KnowledgeBase kb = kb_from_text("q(a2, m).\nr(m, zz).\ns(a, k).\nr(k, b).\np(x, y).\n",
                                       "p(X, Y) :- q(X, Z), r(Z, Y).\n", true);
  ntp::Model model = ntp::make_model(kb, 8, ntp::ProverConfig{}, 5);
  model.prover.k_open = 1;
  model.constants.value *= 4.0;
  const auto constant = [&](const char* name) { return model.kb.constants.find(name); };
  const auto predicate = [&](const char* name) { return model.kb.predicates.find(name); };
  model.constants.value.row(constant("a2")) = model.constants.value.row(constant("a"));
  model.constants.value(constant("a2"), 0) += 0.01f;
  model.predicates.value.row(predicate("s")) = model.predicates.value.row(predicate("q"));
  model.predicates.value(predicate("s"), 0) += 0.5f;
  const ntp::ConstantBalls balls(model, 3);
  const ntp::SlotBounds bounds(model, balls);
  const std::shared_ptr<ntp::FactIndex> facts = ntp::make_fact_index(model, "exact");
  const ntp::Atom goal{predicate("p"), {constant("a"), constant("b")}};
  const std::vector<double> floor = bounds.lower_bounds(goal, 0, bounds.argument_distances(goal, 0), *facts);
  ntp::ScoreOptions proofs;
  proofs.source = ntp::ScoreSource::ProofOnly;
  proofs.facts = facts;
  const double score = ntp::score_atoms(model, {goal}, proofs)[0];
  CHECK(score < 0.5);
  CHECK(floor[static_cast<std::size_t>(constant("a"))] <= score + 1e-12);
}

TEST_CASE("a ranking asked to give up ends given up, without figures; asked and never told to, it ranks as before") {
  // A chain of 300 constants under a rule with a one-atom body: one by one,
  // each side scores about 300 corruptions, more than one batch.
  std::string facts;
  for (int i = 0; i < 300; ++i) facts += "p(c" + std::to_string(i) + ", c" + std::to_string(i + 1) + ").\n";
  const ntp::Model model = ntp::make_model(ntp::training_data_from_text(facts, "2 #1(X, Y) :- #2(Y, X).\n").kb, 4,
                                           ntp::ProverConfig{}, 7);
  const std::vector<ntp::Atom> test(model.kb.facts.begin(), model.kb.facts.begin() + 4);
  const std::unordered_set<ntp::Atom, ntp::AtomHash> known(model.kb.facts.begin(), model.kb.facts.end());
  ntp::RankingOptions asked;
  asked.one_by_one = true;
  std::atomic<int> asks{0};
  asked.give_up = [&] { return ++asks < 0; };  // never
  const ntp::RankingResult whole = ntp::evaluate_ranking(model, test, known, {}, asked);
  CHECK_FALSE(whole.given_up);
  REQUIRE(whole.ranks.size() == 8);
  CHECK(asks.load() > 8 * 2);  // before each side, and between each side's two batches
  // The batches rank as every corruption scored in one call.
  const ntp::ScoreOptions scoring = ntp::with_fact_index(model, {});
  for (const ntp::SideRank& side : whole.ranks) {
    const ntp::Atom& truth = test[side.triple];
    const std::size_t slot = side.side == 0 ? 0 : 1;
    std::vector<ntp::Atom> corruptions;
    for (int c = 0; c < model.kb.constants.size(); ++c) {
      ntp::Atom a = truth;
      a.args[slot] = c;
      if (a != truth && !known.count(a)) corruptions.push_back(a);
    }
    REQUIRE(corruptions.size() > 256);
    const ntp::RankKey true_key = ntp::rank_keys(model, {truth}, scoring)[0];
    CHECK(side.mean == ntp::tie_mean_rank_by_key(true_key, ntp::rank_keys(model, corruptions, scoring)));
  }

  for (int after : {0, 1, 5, 12}) {
    CAPTURE(after);
    asks = 0;
    asked.give_up = [&] { return ++asks > after; };
    const ntp::RankingResult cut = ntp::evaluate_ranking(model, test, known, {}, asked);
    CHECK(cut.given_up);
    CHECK(cut.ranks.empty());
    CHECK(cut.mean_ties.mrr == 0);
    // Not asked again once it said yes, but by threads that asked at once.
    CHECK(asks.load() <= after + omp_get_max_threads());
  }
}
