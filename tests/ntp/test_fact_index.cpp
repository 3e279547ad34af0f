// Tests of the fact indices' freshness: after embeddings move, an updated
// index answers like one built from scratch (exactly, for the exact engines),
// and an HNSW index keeps its recall through many rounds of moves; and of the
// training loop's recall probe and time split.
#include "ntp/index/constant_index.h"
#include "ntp/train/epochs.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/index/recall.h"

#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace {

// `facts` random binary facts over `predicates` x `constants` symbols.
ntp::Model random_model(int predicates, int constants, int facts, int dim, std::uint64_t seed) {
  ntp::KnowledgeBase kb;
  for (int p = 0; p < predicates; ++p) kb.predicates.intern("p" + std::to_string(p));
  for (int c = 0; c < constants; ++c) kb.constants.intern("c" + std::to_string(c));
  std::mt19937_64 rng(seed);
  while (static_cast<int>(kb.facts.size()) < facts)
    kb.add_fact({static_cast<int>(rng() % predicates), {static_cast<int>(rng() % constants), static_cast<int>(rng() % constants)}});
  return ntp::make_model(std::move(kb), dim, ntp::ProverConfig{}, seed);
}

// Queries as training asks them: the facts themselves (masked), their
// inverses under other predicate rows, and half-ground patterns.
std::vector<ntp::FactQuery> queries_of(const ntp::Model& m, int count, bool both_ground, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ntp::FactQuery> out;
  for (int i = 0; i < count; ++i) {
    const int f = static_cast<int>(rng() % m.kb.facts.size());
    const ntp::Atom& fact = m.kb.facts[static_cast<std::size_t>(f)];
    const int row = static_cast<int>(rng() % static_cast<std::uint64_t>(m.predicates.value.rows()));
    if (both_ground) out.push_back({row, {fact.args[1], fact.args[0]}, i % 2 == 0 ? f : -1});
    else out.push_back({row, {fact.args[0], -1}, -1});
  }
  return out;
}

// Moves `share` of the constants (and every predicate) by Gaussian steps of
// size `step`, as an optimiser would, and returns what moved.
ntp::MovedRows move(ntp::Model& m, double share, double step, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0.0, step);
  std::uniform_real_distribution<double> pick(0.0, 1.0);
  ntp::MovedRows moved;
  for (int c = 0; c < m.constants.value.rows(); ++c)
    if (pick(rng) < share) {
      for (int j = 0; j < m.dim; ++j) m.constants.value(c, j) += noise(rng);
      moved.constants.push_back(c);
    }
  for (int p = 0; p < m.predicates.value.rows(); ++p) {
    for (int j = 0; j < m.dim; ++j) m.predicates.value(p, j) += noise(rng);
    moved.predicates.push_back(p);
  }
  return moved;
}

}  // namespace

TEST_CASE("after embeddings move, every exact index answers as one built from scratch") {
  ntp::Model m = random_model(3, 60, 400, 6, 11);
  std::mt19937_64 rng(3);
  for (const char* kind : {"table", "brute", "kdtree", "exact"}) {
    CAPTURE(kind);
    const auto updated = ntp::make_fact_index(m, kind);
    for (int round = 0; round < 5; ++round) {
      updated->embeddings_moved(move(m, 0.2, 0.3, rng));
      const auto fresh = ntp::make_fact_index(m, kind);
      for (bool both : {true, false}) {
        const auto queries = queries_of(m, 50, both, static_cast<std::uint64_t>(round));
        CHECK(updated->nearest(queries, 3) == fresh->nearest(queries, 3));
      }
    }
  }
}

TEST_CASE("an HNSW fact index, updated in place, answers like a fresh one and keeps its recall") {
  // 2,000 constants in 16 dimensions: the graph search is approximate here,
  // and relinking matters, since 150 rounds move every point about 12 times
  // its own nearest-neighbour distance.
  ntp::Model m = random_model(4, 2000, 6000, 16, 5);
  // Wide look-ups, so that what is measured is the graph's freshness rather
  // than how far random facts lie from the goal's own constants.
  ntp::FactIndexOptions wide;
  wide.neighbours = 16;
  wide.max_neighbours = 128;
  ntp::FactIndexOptions relink_often = wide, never_relink = wide;
  relink_often.update_every = 10;
  never_relink.update_every = 1000000;
  const auto often = ntp::make_fact_index(m, "hnsw", relink_often);
  const auto never = ntp::make_fact_index(m, "hnsw", never_relink);
  const auto exact = ntp::make_fact_index(m, "brute");
  CHECK_FALSE(often->exact());
  CHECK(exact->exact());
  std::mt19937_64 rng(8);
  for (int round = 1; round <= 150; ++round) {
    const ntp::MovedRows moved = move(m, 0.05, 0.25, rng);
    often->embeddings_moved(moved);
    never->embeddings_moved(moved);
    exact->embeddings_moved(moved);
    if (round % 50 != 0) continue;
    CAPTURE(round);
    const auto fresh = ntp::make_fact_index(m, "hnsw", wide);
    for (bool both : {true, false}) {
      CAPTURE(both);
      const auto queries = queries_of(m, 300, both, static_cast<std::uint64_t>(round));
      const double recall_fresh = ntp::recall_at_k(*fresh, *exact, queries, 1);
      const double recall_often = ntp::recall_at_k(*often, *exact, queries, 1);
      const double recall_never = ntp::recall_at_k(*never, *exact, queries, 1);
      CHECK(recall_fresh >= 0.95);
      CHECK(recall_often >= 0.95);
      CHECK(recall_often >= recall_fresh - 0.02);  // as good as a fresh graph
      CHECK(recall_never >= 0.80);                 // points moved in place: still a usable graph
      CHECK(ntp::recall_at_k(*exact, *exact, queries, 3) == 1.0);
    }
  }
  CHECK(often->stats().rows_relinked > 0);
  CHECK(never->stats().rows_relinked == 0);
}

TEST_CASE("an HNSW fact index searches its graph with a beam per constant asked") {
  // 2,000 random constants in 64 dimensions, where a beam as narrow as the
  // look-up misses neighbours that a wider one finds (the same graph: the
  // seed draws its levels).
  const ntp::Model m = random_model(4, 2000, 6000, 64, 5);
  const auto exact = ntp::make_fact_index(m, "brute");
  ntp::FactIndexOptions narrow, wide;
  narrow.beam_per_neighbour = 1;
  wide.beam_per_neighbour = 16;
  const auto queries = queries_of(m, 300, false, 3);
  const double recall_narrow = ntp::recall_at_k(*ntp::make_fact_index(m, "hnsw", narrow), *exact, queries, 1);
  const double recall_wide = ntp::recall_at_k(*ntp::make_fact_index(m, "hnsw", wide), *exact, queries, 1);
  CAPTURE(recall_narrow);
  CAPTURE(recall_wide);
  CHECK(recall_wide >= 0.99);
  CHECK(recall_wide > recall_narrow);
  ntp::FactIndexOptions none;
  none.beam_per_neighbour = 0;
  CHECK_THROWS_AS(ntp::make_fact_index(m, "hnsw", none), std::invalid_argument);
}

TEST_CASE("training through an HNSW index probes its recall and splits its time") {
  ntp::Model m = random_model(3, 300, 900, 8, 2);
  ntp::ProverConfig config;
  config.index = "hnsw";
  m = ntp::make_model(m.kb, 8, config, 2);
  ntp::TrainOptions o;
  o.epochs = 1;
  o.negatives = 2;
  o.recall_every = 5;
  o.profile = true;
  std::vector<ntp::EpochReport> reports;
  ntp::train_epochs(m, o, [&](const ntp::EpochReport& r) { reports.push_back(r); });
  REQUIRE(reports.size() == 1);
  const ntp::EpochReport& r = reports[0];
  CHECK(r.recall_probes == 18);  // steps 0, 5, ..., 85 of 90
  CHECK(r.recall_at_1 > 0.9);
  CHECK(r.recall_at_1 <= 1.0);
  CHECK(r.time.goals == 900 * 3);
  CHECK(r.time.index.queries >= r.time.goals);
  CHECK(r.time.proof_search > 0);
  CHECK(r.time.backward > 0);
  // An exact index is never probed.
  m.prover.index = "brute";
  reports.clear();
  ntp::train_epochs(m, o, [&](const ntp::EpochReport& rep) { reports.push_back(rep); });
  CHECK(reports.at(0).recall_probes == 0);
  CHECK(reports.at(0).recall_at_1 == -1);
}

TEST_CASE("a query masking several facts never gets one of them, and k still counts the others, on every engine") {
  // Every fact has its inverse, as most of WN11's training facts do: with pair
  // masking, a goal hides every fact between its two constants.
  ntp::Model m = random_model(3, 40, 150, 6, 4);
  const std::size_t base = m.kb.facts.size();
  for (std::size_t f = 0; f < base; ++f) {
    const ntp::Atom& fact = m.kb.facts[f];
    m.kb.add_fact({(fact.predicate + 1) % 3, {fact.args[1], fact.args[0]}});
  }
  m = ntp::make_model(m.kb, 6, ntp::ProverConfig{}, 4);
  std::vector<ntp::FactQuery> queries;
  for (std::size_t f = 0; f < m.kb.facts.size(); f += 7) {
    const ntp::Atom& fact = m.kb.facts[f];
    ntp::FactQuery q{fact.predicate, fact.args, -1};
    for (std::size_t g = 0; g < m.kb.facts.size(); ++g) {
      std::vector<int> a = m.kb.facts[g].args, b = fact.args;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a == b) q.masked.ids.push_back(static_cast<int>(g));
    }
    REQUIRE(q.masked.size() >= 2);  // the fact and its inverse at least
    queries.push_back(q);
  }
  const auto exact = ntp::make_fact_index(m, "brute");
  const auto expected = exact->nearest(queries, 4);
  for (const char* kind : {"table", "brute", "kdtree", "exact", "hnsw"}) {
    CAPTURE(kind);
    const auto found = ntp::make_fact_index(m, kind)->nearest(queries, 4);
    REQUIRE(found.size() == queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) {
      CHECK(found[q].size() == 4);
      for (int f : found[q]) CHECK_FALSE(queries[q].masked.contains(f));
    }
    if (std::string(kind) != "hnsw") CHECK(found == expected);
  }
}

TEST_CASE("batches that share one constant, as ranking asks them, get the same facts from every exact engine") {
  // Ranking p(s, ?) asks p(s, c) and q(c, s) for every constant c: the exact
  // engines then read s's distances from a row computed once per batch.
  const ntp::Model m = random_model(4, 300, 3000, 8, 21);
  std::mt19937_64 rng(5);
  for (int s : {0, 17, 299}) {
    CAPTURE(s);
    std::vector<ntp::FactQuery> queries;
    for (int c = 0; c < 300; ++c) {
      const int row = static_cast<int>(rng() % static_cast<std::uint64_t>(m.predicates.value.rows()));
      queries.push_back({row, {s, c}, -1});
      queries.push_back({(row + 1) % 4, {c, s}, -1});
    }
    const auto expected = ntp::make_fact_index(m, "brute")->nearest(queries, 2);
    for (const char* kind : {"table", "kdtree", "exact"}) {
      CAPTURE(kind);
      CHECK(ntp::make_fact_index(m, kind)->nearest(queries, 2) == expected);
    }
  }
}

TEST_CASE("hub constants, wide embeddings and many queries per constant tuple: the exact engines skip no fact that matters") {
  // The look-up engines skip a gathered fact once `want` others are nearer
  // for every query of its tuple, testing the first 32 coordinates of a
  // distance before the rest (embeddings of >= 64 dimensions): hubs (a few
  // constants in most facts) and several predicate rows per tuple, as a
  // goal and its rule bodies ask, make both happen often.
  ntp::KnowledgeBase kb;
  const int predicates = 6, constants = 400;
  for (int p = 0; p < predicates; ++p) kb.predicates.intern("p" + std::to_string(p));
  for (int c = 0; c < constants; ++c) kb.constants.intern("c" + std::to_string(c));
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto skewed = [&] { return static_cast<int>(constants * std::pow(unit(rng), 3.0)); };  // low ids are hubs
  while (kb.facts.size() < 4000) kb.add_fact({static_cast<int>(rng() % predicates), {skewed(), skewed()}});
  ntp::Model m = ntp::make_model(std::move(kb), 72, ntp::ProverConfig{}, 3);
  for (int c = 0; c < constants; ++c) m.constants.value.row(c) *= 0.2 + 2.0 * unit(rng);  // sizes far apart, as training leaves them
  for (const bool both_ground : {true, false}) {
    std::vector<ntp::FactQuery> queries;
    for (int t = 0; t < 120; ++t) {
      const int f = static_cast<int>(rng() % m.kb.facts.size());
      const ntp::Atom& fact = m.kb.facts[static_cast<std::size_t>(f)];
      const int other = both_ground ? (t % 3 == 0 ? fact.args[1] : skewed()) : -1;
      for (int row = 0; row < predicates; ++row)  // one tuple, every predicate row
        queries.push_back({row, {fact.args[0], other}, row == fact.predicate && both_ground ? f : -1});
    }
    for (int want : {1, 2, 5}) {
      CAPTURE(both_ground);
      CAPTURE(want);
      const auto expected = ntp::make_fact_index(m, "brute")->nearest(queries, want);
      for (const char* kind : {"table", "kdtree", "exact"}) {
        CAPTURE(kind);
        CHECK(ntp::make_fact_index(m, kind)->nearest(queries, want) == expected);
      }
    }
  }
}
