// Tests of proof search and scoring: unification, rules, depth, masking, the
// agreement of the tape and plain scoring, and fact selection backends.
#include "ntp/eval/evaluate.h"
#include "ntp/eval/ranking.h"
#include "ntp/kb/parse.h"
#include "ntp/ntp.h"
#include "ntp/prover/prover.h"

#include "table_gradcheck.h"
#include "ntp/index/make_fact_index.h"

#include "kb_from_text.h"

#include <doctest/doctest.h>

#include <cmath>
#include <omp.h>
#include <random>
#include <sstream>
#include <tuple>

namespace {

using ntp::Atom;

// A KB from .nl text and optional .nlt/.pl template text.
Atom atom(const ntp::Model& m, const std::string& text) { return ntp::parse_atom(text, m.kb); }

// exp(-‖x - y‖) with the squared distance clipped, as the prover computes it.
double k(const ad::Matrix& table, int a, int b) {
  const double sq = (table.row(a) - table.row(b)).squaredNorm();
  return std::exp(-std::sqrt(std::clamp(sq, ad::kMinSquaredDistance, ad::kMaxSquaredDistance)));
}

std::vector<double> prove(const ntp::Model& m, const std::vector<ntp::Goal>& goals, const std::string& index = "table") {
  const auto facts = ntp::make_fact_index(m, index);
  ntp::Prover prover(m, *facts, m.prover);
  return ntp::score_goals(m, prover.search(goals));
}

ntp::ProverConfig exhaustive(int depth) {
  ntp::ProverConfig c;
  c.depth = depth;
  c.k_facts = 0;
  return c;
}

}  // namespace

TEST_CASE("a ground goal scores max over facts of min over positions") {
  ntp::Model m = ntp::make_model(kb_from_text("p(a,b).\np(c,d).\nq(a,d).\n"), 4, exhaustive(0), 3);
  const int p = m.kb.predicates.find("p"), q = m.kb.predicates.find("q");
  const int a = m.kb.constants.find("a"), b = m.kb.constants.find("b"), c = m.kb.constants.find("c"),
            d = m.kb.constants.find("d");
  const auto& P = m.predicates.value;
  const auto& C = m.constants.value;
  // p(a, d) against p(a,b), p(c,d) and q(a,d), computed by hand.
  const double expected = std::max({std::min({k(P, p, p), k(C, a, a), k(C, d, b)}),
                                    std::min({k(P, p, p), k(C, a, c), k(C, d, d)}),
                                    std::min({k(P, p, q), k(C, a, a), k(C, d, d)})});
  const auto scores = prove(m, {{atom(m, "p(a, d)"), -1}});
  CHECK(scores[0] == doctest::Approx(expected).epsilon(1e-12));
  // A fact of the KB proves itself with the largest kernel there is.
  CHECK(prove(m, {{atom(m, "p(a, b)"), -1}})[0] == doctest::Approx(std::exp(-1e-3)));
}

TEST_CASE("masking removes the fact being proven from its own proofs") {
  ntp::Model m = ntp::make_model(kb_from_text("p(a,b).\np(c,d).\n"), 4, exhaustive(0), 5);
  const Atom goal = atom(m, "p(a, b)");
  const int fact = 0;  // p(a,b) is the first fact
  REQUIRE(m.kb.facts[fact] == goal);
  const double unmasked = prove(m, {{goal, -1}})[0];
  const double masked = prove(m, {{goal, fact}})[0];
  const int a = m.kb.constants.find("a"), b = m.kb.constants.find("b"), c = m.kb.constants.find("c"),
            d = m.kb.constants.find("d");
  CHECK(unmasked == doctest::Approx(std::exp(-1e-3)));
  CHECK(masked == doctest::Approx(std::min(k(m.constants.value, a, c), k(m.constants.value, b, d))));
  CHECK(masked < unmasked);
}

TEST_CASE("a rule binds variables and its body is proven from facts") {
  // With fixed predicates (a .pl gold rule), p(a, b) follows from q(b, a)
  // exactly: every kernel on that path compares a symbol with itself.
  ntp::Model m = ntp::make_model(kb_from_text("q(b,a).\nq(c,c).\np(c,c).\n", "p(X, Y) :- q(Y, X)\n", true), 4,
                                 exhaustive(1), 7);
  REQUIRE(m.rules.size() == 1);
  CHECK(prove(m, {{atom(m, "p(a, b)"), -1}})[0] == doctest::Approx(std::exp(-1e-3)));

  // Depth 0 allows no rule: p(a, b) must then unify with a fact directly.
  ntp::Model shallow = m;
  shallow.prover.depth = 0;
  const double direct = prove(shallow, {{atom(m, "p(a, b)"), -1}})[0];
  CHECK(direct < 0.999);

  // p(b, a) needs q(a, b), which is not a fact: the best path compares symbols.
  const int a = m.kb.constants.find("a"), b = m.kb.constants.find("b"), c = m.kb.constants.find("c");
  const int p = m.kb.predicates.find("p"), q = m.kb.predicates.find("q");
  const auto& P = m.predicates.value;
  const auto& C = m.constants.value;
  const double head = k(P, p, p);  // p(X, Y) ~ p(b, a)
  const double via_rule = std::min(head, std::max({std::min({k(P, q, q), k(C, a, b), k(C, b, a)}),   // ~ q(b,a)
                                                   std::min({k(P, q, q), k(C, a, c), k(C, b, c)}),   // ~ q(c,c)
                                                   std::min({k(P, q, p), k(C, a, c), k(C, b, c)})}));  // ~ p(c,c)
  const double via_fact = std::max({std::min({k(P, p, q), k(C, b, b), k(C, a, a)}),
                                    std::min({k(P, p, q), k(C, b, c), k(C, a, c)}),
                                    std::min({k(P, p, p), k(C, b, c), k(C, a, c)})});
  CHECK(prove(m, {{atom(m, "p(b, a)"), -1}})[0] == doctest::Approx(std::max(via_rule, via_fact)).epsilon(1e-12));
}

TEST_CASE("proof support orders atoms whose best proofs tie, and nothing else") {
  // p(a, b) and p(a, c) are both proven exactly, through q; only p(a, b) is
  // also proven through r. Their scores are equal (the clipped kernel of an
  // exact match), their support is not.
  ntp::Model m = ntp::make_model(
      kb_from_text("q(a,b).\nq(a,c).\nr(a,b).\np(z,z).\n", "p(X, Y) :- q(X, Y)\np(X, Y) :- r(X, Y)\n", true), 4,
      exhaustive(1), 13);
  m.prover.k_facts = 1;  // NTP 2.0: one path per rule (exhaustive search keeps only the best path)
  const auto facts = ntp::make_fact_index(m, "table");
  ntp::Prover prover(m, *facts, m.prover);
  const ntp::ProofBatch batch = prover.search({{atom(m, "p(a, b)"), -1}, {atom(m, "p(a, c)"), -1}});
  const ntp::GoalScores scores = ntp::score_goals_with_support(m, batch);
  CHECK(scores.best == ntp::score_goals(m, batch));
  CHECK(scores.best[0] == scores.best[1]);
  CHECK(scores.support[0] > scores.support[1]);
  // The support is the sum over the goal's paths of the product of their kernels.
  double support = 0;
  for (ad::Index p = 0; p < batch.path_counts[0]; ++p) {
    double product = 1;
    for (int c : batch.paths[static_cast<std::size_t>(p)].comparisons)
      product *= ntp::kernel(m, batch.comparisons[static_cast<std::size_t>(c)]);
    support += product;
  }
  CHECK(scores.support[0] == doctest::Approx(support).epsilon(1e-12));

  // Ranking p(a, b) against its corruptions: tied with p(a, c) on the score,
  // first once the support breaks the tie.
  const Atom test = atom(m, "p(a, b)");
  std::unordered_set<Atom, ntp::AtomHash> known(m.kb.facts.begin(), m.kb.facts.end());
  known.insert(test);
  ntp::ScoreOptions no_tie_break;
  no_tie_break.tie_break = false;
  const ntp::RankingResult plain = ntp::evaluate_ranking(m, {test}, known, no_tie_break);
  const ntp::RankingResult broken = ntp::evaluate_ranking(m, {test}, known);
  CHECK(plain.tied_ranks >= 1);
  CHECK(broken.tied_on_score_alone == plain.tied_ranks);
  CHECK(broken.tied_ranks < plain.tied_ranks);
  CHECK(broken.mean_ties.mrr > plain.mean_ties.mrr);
  CHECK(broken.optimistic_ties.mrr == plain.optimistic_ties.mrr);  // ties were already won optimistically
}

TEST_CASE("a two-atom rule chains a variable through both body atoms") {
  ntp::Model m = ntp::make_model(kb_from_text("f(a,b).\nf(b,c).\nf(c,d).\ng(d,d).\n", "g(X, Y) :- f(X, Z), f(Z, Y)\n", true),
                                 6, exhaustive(1), 11);
  // g(a, c) holds through Z = b, with every kernel exact.
  CHECK(prove(m, {{atom(m, "g(a, c)"), -1}})[0] == doctest::Approx(std::exp(-1e-3)));
  // Top-1 selection finds the same proof: f(a, Z) retrieves f(a,b), then f(b, c).
  ntp::Model top1 = m;
  top1.prover.k_facts = 1;
  CHECK(prove(top1, {{atom(m, "g(a, c)"), -1}})[0] == doctest::Approx(std::exp(-1e-3)));
}

TEST_CASE("a query variable is bound by the facts that prove it") {
  ntp::Model m = ntp::make_model(kb_from_text("p(a,b).\np(c,d).\n"), 4, exhaustive(0), 13);
  ntp::Goal goal{atom(m, "p(c, d)"), -1};
  goal.atom.args[1] = -1;  // p(c, Y)
  const auto facts = ntp::make_fact_index(m, "table");
  ntp::Prover prover(m, *facts, m.prover);
  const ntp::ProofBatch batch = prover.search({goal}, /*explain=*/true);
  const auto scores = ntp::score_goals(m, batch);
  CHECK(scores[0] == doctest::Approx(std::exp(-1e-3)));  // Y = d
  REQUIRE(batch.paths.size() == 2);
  for (const ntp::ProofPath& path : batch.paths) {
    REQUIRE(path.steps.size() == 1);
    CHECK(path.steps[0].atom.args[1] == m.kb.facts[static_cast<std::size_t>(path.steps[0].id)].args[1]);
  }
}

TEST_CASE("tape scores equal plain scores, and their gradient matches finite differences") {
  ntp::Model m = ntp::make_model(kb_from_text("p(a,b).\nq(b,c).\np(c,a).\nq(a,a).\n", "2 #1(X, Y) :- #2(Y, X).\n"), 5,
                                 exhaustive(1), 17);
  std::vector<ntp::Goal> goals{{atom(m, "p(a, b)"), 0}, {atom(m, "q(c, b)"), -1}, {atom(m, "p(b, c)"), -1}};
  const std::vector<double> labels{1, 0, 1};
  const auto facts = ntp::make_fact_index(m, "table");
  ntp::Prover prover(m, *facts, m.prover);
  const ntp::ProofBatch batch = prover.search(goals);  // exhaustive: the paths do not depend on embeddings
  const auto plain = ntp::score_goals(m, batch);
  ad::Tape tape;
  const ad::Var scores = ntp::score_goals(tape, m, batch);
  REQUIRE(tape.value(scores).rows() == 3);
  for (int g = 0; g < 3; ++g) CHECK(tape.value(scores)(g, 0) == doctest::Approx(plain[static_cast<std::size_t>(g)]));
  tape.backward(ad::binary_cross_entropy(tape, scores, labels));
  CHECK(m.constants.grad.norm() + m.predicates.grad.norm() > 0);

  check_table_gradients(m, [&]() {
    ad::Tape t;
    return t.scalar(ad::binary_cross_entropy(t, ntp::score_goals(t, m, batch), labels));
  });
}

TEST_CASE("every fact index returns the same nearest facts on a small KB") {
  ntp::Model m = ntp::make_model(kb_from_text("p(a,b).\np(b,c).\nq(c,a).\nq(a,b).\nr(b,b).\np(c,c).\n"), 8,
                                 ntp::ProverConfig{}, 19);
  const auto table_index = ntp::make_fact_index(m, "table"), brute_index = ntp::make_fact_index(m, "brute"),
             kdtree_index = ntp::make_fact_index(m, "kdtree"), hnsw_index = ntp::make_fact_index(m, "hnsw");
  ntp::FactIndex &table = *table_index, &brute = *brute_index, &kdtree = *kdtree_index, &hnsw = *hnsw_index;
  std::vector<ntp::FactQuery> queries;
  for (int p = 0; p < m.kb.predicates.size(); ++p)
    for (int c = 0; c < m.kb.constants.size(); ++c) queries.push_back({p, {c, -1}, -1});
  const auto expected = table.nearest(queries, 2);
  CHECK(brute.nearest(queries, 2) == expected);
  CHECK(kdtree.nearest(queries, 2) == expected);
  CHECK(hnsw.nearest(queries, 2) == expected);  // six points: the graph search is exhaustive
  for (auto& q : queries) q.args = {q.args[0], (q.args[0] + 1) % m.kb.constants.size()};
  CHECK(table.nearest(queries, 3) == brute.nearest(queries, 3));
  CHECK(table.nearest(queries, 3) == kdtree.nearest(queries, 3));
  CHECK_THROWS_AS(ntp::make_fact_index(m, "faiss"), std::invalid_argument);
  // The masked fact never comes back, and k still counts the others.
  queries.front().masked = table.nearest({queries.front()}, 1)[0][0];
  const auto found = table.nearest({queries.front()}, 2)[0];
  CHECK(found.size() == 2);
  CHECK(std::find(found.begin(), found.end(), queries.front().masked.ids[0]) == found.end());
}

TEST_CASE("every exact fact index, and HNSW on a small KB, finds what a full scan finds") {
  // 300 facts over 4 predicates and 20 constants: many facts share a
  // constant, so exact ties in distance are common and must go to the lower id.
  std::ostringstream facts;
  std::mt19937 rng(5);
  for (int i = 0; i < 300; ++i) facts << "p" << rng() % 4 << "(c" << rng() % 20 << ",c" << rng() % 20 << ").\n";
  ntp::Model m = ntp::make_model(kb_from_text(facts.str(), "3 #1(X, Y) :- #2(Y, X).\n"), 3, ntp::ProverConfig{}, 7);
  for (const char* kind : {"table", "brute", "kdtree", "exact", "hnsw"}) {
  CAPTURE(kind);
  const auto index = ntp::make_fact_index(m, kind);
  const int num_facts = static_cast<int>(m.kb.facts.size());
  for (const std::vector<bool>& ground : {std::vector<bool>{true, false}, {false, true}, {true, true}}) {
    std::vector<ntp::FactQuery> queries;
    for (int row = 0; row < m.predicates.value.rows(); ++row)  // KB predicates and rule slots
      for (int c = 0; c < m.kb.constants.size(); c += 3) {
        ntp::FactQuery q{row, {ground[0] ? c : -1, ground[1] ? (c * 7) % m.kb.constants.size() : -1}, -1};
        if (c % 2 == 0) q.masked = (row * 31 + c) % num_facts;
        queries.push_back(q);
      }
    for (int k : {1, 3}) {
      const auto found = index->nearest(queries, k);
      for (std::size_t q = 0; q < queries.size(); ++q) {
        // The reference: every fact's squared key distance, in double.
        std::vector<std::pair<double, int>> all;
        for (int f = 0; f < num_facts; ++f) {
          if (queries[q].masked.contains(f)) continue;
          const ntp::Atom& fact = m.kb.facts[static_cast<std::size_t>(f)];
          double d = (m.predicates.value.row(queries[q].predicate_row) - m.predicates.value.row(fact.predicate)).squaredNorm();
          for (std::size_t a = 0; a < 2; ++a)
            if (queries[q].args[a] >= 0)
              d += (m.constants.value.row(queries[q].args[a]) - m.constants.value.row(fact.args[a])).squaredNorm();
          all.emplace_back(d, f);
        }
        std::sort(all.begin(), all.end());
        REQUIRE(found[q].size() == static_cast<std::size_t>(k));
        for (int i = 0; i < k; ++i) {
          CAPTURE(q);
          CHECK(found[q][static_cast<std::size_t>(i)] == all[static_cast<std::size_t>(i)].second);
        }
      }
    }
  }
  }
}

TEST_CASE("exhaustive branch and bound finds the same best proof as enumerating every path") {
  // Random KBs where chains of facts matter. Enumerating every path (what
  // explanations do) grows as facts^depth, so depth 2 gets a smaller KB.
  for (const std::tuple<int, int, int>& setting : {std::tuple{1, 60, 6}, std::tuple{2, 9, 4}}) {
    // Named variables, not a structured binding: CAPTURE needs a variable a lambda can capture.
    const int depth = std::get<0>(setting), num_facts = std::get<1>(setting), num_constants = std::get<2>(setting);
    CAPTURE(depth);
    std::ostringstream facts;
    std::mt19937 rng(29);
    for (int i = 0; i < num_facts; ++i)
      facts << (i % 3 == 0 ? "p" : i % 3 == 1 ? "q" : "r") << "(c" << rng() % num_constants << ",c"
            << rng() % num_constants << ").\n";
    ntp::Model m = ntp::make_model(kb_from_text(facts.str(), "2 #1(X, Y) :- #2(X, Z), #3(Z, Y).\n1 #1(X, Y) :- #2(Y, X).\n"),
                                   2, exhaustive(depth), 31);
    std::vector<ntp::Goal> goals;
    for (int i = 0; i < static_cast<int>(m.kb.facts.size()); ++i)
      goals.push_back({m.kb.facts[static_cast<std::size_t>(i)], i % 2 == 0 ? i : -1});
    const auto index = ntp::make_fact_index(m, "table");
    ntp::Prover prover(m, *index, m.prover);
    const ntp::ProofBatch pruned = prover.search(goals);
    const ntp::ProofBatch every = prover.search(goals, /*explain=*/true);  // explanations keep every path
    CHECK(pruned.paths.size() <= goals.size());
    CHECK(every.paths.size() > 10 * goals.size());
    const auto a = ntp::score_goals(m, pruned), b = ntp::score_goals(m, every);
    for (std::size_t g = 0; g < goals.size(); ++g) CHECK(a[g] == doctest::Approx(b[g]).epsilon(1e-12));
  }
}

TEST_CASE("depth counts rule applications along one branch, not across sibling atoms") {
  // p(a, c) needs the p rule, then the q rule on each of its two body atoms:
  // nesting depth 2, although three rules are applied in all.
  ntp::Model m = ntp::make_model(kb_from_text("r(a,b).\nr(b,c).\nq(c,c).\np(c,c).\n",
                                         "p(X, Y) :- q(X, Z), q(Z, Y)\nq(X, Y) :- r(X, Y)\n", true),
                                 4, exhaustive(2), 37);
  CHECK(prove(m, {{atom(m, "p(a, c)"), -1}})[0] == doctest::Approx(std::exp(-1e-3)));
  ntp::Model shallow = m;
  shallow.prover.depth = 1;
  CHECK(prove(shallow, {{atom(m, "p(a, c)"), -1}})[0] < 0.99);
}

TEST_CASE("goals searched in chunks across threads give the batch searched on one thread") {
  // The chunks' paths are laid out together, their comparisons numbered
  // once: the batch must not depend on how the goals were split.
  std::ostringstream facts;
  std::mt19937 rng(41);
  for (int i = 0; i < 90; ++i)
    facts << (i % 3 == 0 ? "p" : i % 3 == 1 ? "q" : "r") << "(c" << rng() % 12 << ",c" << rng() % 12 << ").\n";
  for (int k_facts : {2, 0}) {  // every path, and branch and bound
    CAPTURE(k_facts);
    ntp::ProverConfig config = exhaustive(1);
    config.k_facts = k_facts;
    ntp::Model m = ntp::make_model(kb_from_text(facts.str(), "2 #1(X, Y) :- #2(X, Z), #3(Z, Y).\n"), 2, config, 43);
    std::vector<ntp::Goal> goals;
    for (int i = 0; i < static_cast<int>(m.kb.facts.size()); ++i) goals.push_back({m.kb.facts[static_cast<std::size_t>(i)], i});
    const auto index = ntp::make_fact_index(m, "table");
    ntp::Prover prover(m, *index, m.prover);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const ntp::ProofBatch whole = prover.search(goals);
    omp_set_num_threads(3);  // 90 goals: three chunks
    const ntp::ProofBatch chunked = prover.search(goals);
    omp_set_num_threads(threads);
    CHECK(chunked.path_counts == whole.path_counts);
    REQUIRE(chunked.comparisons.size() == whole.comparisons.size());
    for (std::size_t i = 0; i < whole.comparisons.size(); ++i) {
      CHECK(chunked.comparisons[i].table == whole.comparisons[i].table);
      CHECK(chunked.comparisons[i].a == whole.comparisons[i].a);
      CHECK(chunked.comparisons[i].b == whole.comparisons[i].b);
    }
    REQUIRE(chunked.paths.size() == whole.paths.size());
    for (std::size_t p = 0; p < whole.paths.size(); ++p) CHECK(chunked.paths[p].comparisons == whole.paths[p].comparisons);
  }
}

TEST_CASE("k-open keeps more facts for an atom with an unbound argument, and a model file keeps it") {
  // r(a, e) :- p(a, Z), q(Z, e) has three ways through Z: b, c and d.
  ntp::KnowledgeBase kb = kb_from_text("p(a, b). p(a, c). p(a, d). q(b, e). q(c, e). q(d, e). r(x, y).",
                                       "1  r(X, Y) :- p(X, Z), q(Z, Y).\n");
  ntp::ProverConfig config;
  config.depth = 1;
  config.k_facts = 1;
  config.index = "exact";
  config.k_open = 0;  // = k_facts
  ntp::Model m = ntp::make_model(kb, 8, config, 4);
  const std::size_t one = ntp::Reasoner(m).prove("r(a, e)", 100).proofs_searched;
  m.prover.k_open = 3;
  const std::size_t three = ntp::Reasoner(m).prove("r(a, e)", 100).proofs_searched;
  CHECK(three > one);
  // An open atom keeps at least k_facts: k-open below k changes nothing.
  m.prover.k_facts = 3;
  const std::size_t k_three = ntp::Reasoner(m).prove("r(a, e)", 100).proofs_searched;
  m.prover.k_open = 1;
  CHECK(ntp::Reasoner(m).prove("r(a, e)", 100).proofs_searched == k_three);
  m.prover.k_open = 0;
  CHECK(ntp::Reasoner(m).prove("r(a, e)", 100).proofs_searched == k_three);
  m.prover.k_facts = 1;
  m.prover.k_open = 3;
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_k_open.ntp";
  ntp::save_model(m, path);
  CHECK(ntp::load_model(path).prover.k_open == 3);
}
