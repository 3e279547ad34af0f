// Conditional proving (ntp/model/conditional.h): conditioned rows are the
// reformulator's formula, on and off the tape, at depth 1 and 2; proof
// scores reach the reformulator with the gradient finite differences give;
// model files keep it (older files still load); and training lets one rule
// serve two relations with a body of its own for each.
#include "ntp/index/make_fact_index.h"
#include "ntp/kb/parse.h"
#include "ntp/model/conditional.h"
#include "ntp/model/rule_attention.h"
#include "ntp/model/rules.h"
#include "ntp/prover/prover.h"
#include "ntp/train/epochs.h"
#include "ntp/train/step.h"

#include "inverse_rule_training.h"
#include "table_gradcheck.h"

#include "kb_from_text.h"

#include <doctest/doctest.h>

#include <fstream>
#include <algorithm>
#include <random>
#include <set>
#include <sstream>

namespace {

// Two relations, each with an inverse known for 7 of 10 pairs: s of r, and
// u of t. One inverse rule must give each its own body.
ntp::KnowledgeBase two_inverses_kb() {
  std::ostringstream text;
  for (int i = 1; i <= 10; ++i) text << "r(a" << i << ",b" << i << ").\nt(c" << i << ",d" << i << ").\n";
  for (int i = 1; i <= 7; ++i) text << "s(b" << i << ",a" << i << ").\nu(d" << i << ",c" << i << ").\n";
  return kb_from_text(text.str(), "1  #1(X, Y) :- #2(Y, X).\n1  #1(X, Y) :- #2(X, Z), #3(Z, Y).\n");
}

ntp::Model conditional_model(ntp::Reformulator kind, int depth, int dim, std::uint64_t seed) {
  ntp::ProverConfig config;
  config.depth = depth;
  config.k_facts = 0;  // exhaustive: the paths do not depend on the embeddings
  ntp::Model m = ntp::make_model(two_inverses_kb(), dim, config, seed);
  ntp::add_conditioning(m, kind, seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (ad::Index e = 0; e < m.conditioning.weights.value.size(); ++e) m.conditioning.weights.value.data()[e] = u(rng);
  ntp::refresh_conditioned_rows(m);
  return m;
}

// θ_s(g) written out for one conditioned row, apart from the library's tape.
ad::Matrix expected_row(const ntp::Model& m, const ntp::Conditioning::Row& c) {
  const int p = m.num_kb_predicates;
  const ad::Matrix w = m.conditioning.weights.value.middleRows(static_cast<ad::Index>(c.slot - p) * m.dim, m.dim);
  const ad::Matrix g = m.predicates.value.row(c.source);
  if (m.conditioning.kind == ntp::Reformulator::Linear) return m.predicates.value.row(c.slot) + g * w;
  const ad::Matrix logits = ntp::scaled_attention_logits(m).row(c.slot - p) + ntp::kAttentionLogitScale * g * w;
  ad::Matrix e = (logits.array() - logits.maxCoeff()).exp().matrix();
  e /= e.sum();
  return e * ntp::attendable_rows(m);
}

}  // namespace

TEST_CASE("conditioned rows hold the reformulator's formula of their slot and goal, on and off the tape") {
  for (ntp::Reformulator kind : {ntp::Reformulator::Linear, ntp::Reformulator::Attentive})
    for (int depth : {1, 2}) {
      CAPTURE(ntp::reformulator_name(kind));
      CAPTURE(depth);
      const ntp::Model m = conditional_model(kind, depth, 5, 3);
      // 4 predicates; 5 slots, 3 of them in bodies: 12 rows conditioned on
      // the goals, and at depth 2 each body slot also on those 12 rows.
      const std::size_t rows = depth == 1 ? 12 : 12 + 3 * 12;
      REQUIRE(m.conditioning.rows.size() == rows);
      REQUIRE(m.predicates.value.rows() == 4 + 5 + static_cast<ad::Index>(rows));
      for (std::size_t i = 0; i < rows; ++i) {
        const ntp::Conditioning::Row& c = m.conditioning.rows[i];
        const int row = 9 + static_cast<int>(i);
        CHECK(c.source < row);  // computed from rows before it
        CHECK(ntp::conditioned_row(m, c.slot, c.source) == row);
        CHECK(m.predicates.value.row(row).isApprox(expected_row(m, c), 1e-12));
      }
      ntp::Model copy = m;
      ad::Tape tape;
      CHECK(tape.value(ntp::predicate_table(tape, copy)).isApprox(m.predicates.value, 1e-12));
      // Only the last row asked: it, and at depth 2 the level-1 row it is
      // computed from, are computed after the 9 base rows; no other.
      const int last = 9 + static_cast<int>(rows) - 1;
      const ntp::PartialTable part = ntp::predicate_table(tape, copy, {last});
      const ad::Matrix values = tape.value(part.table);
      CHECK(values.rows() == 9 + depth);
      CHECK(values.row(part.position[static_cast<std::size_t>(last)]).isApprox(m.predicates.value.row(last), 1e-12));
      int computed = 0;
      for (ad::Index p : part.position) computed += p >= 0;
      CHECK(computed == 9 + depth);
      CHECK_THROWS_AS(ntp::conditioned_row(m, 4, 3), std::logic_error);  // row 4 is a head slot: never conditioned
    }
}

TEST_CASE("a conditional rule has no head kernel and asks its body through conditioned rows") {
  ntp::Model m = conditional_model(ntp::Reformulator::Linear, 1, 4, 8);
  const auto facts = ntp::make_fact_index(m, "table");
  const ntp::Prover prover(m, *facts, m.prover);
  const ntp::ProofBatch batch = prover.search({{ntp::parse_atom("s(b9, a9)", m.kb), -1}}, /*explain=*/true);
  int by_inverse = 0;
  for (const ntp::ProofPath& path : batch.paths) {
    const ntp::ProofStep& first = path.steps.front();
    if (!first.by_rule || first.id != 0) continue;
    ++by_inverse;
    // s(b9, a9) by #1(X, Y) :- #2(Y, X): no predicate kernel at the rule
    // step; the body atom asks #2 conditioned on s.
    for (const ntp::Comparison& c : first.comparisons) CHECK(c.table != ntp::Table::Predicate);
    CHECK(path.steps[1].atom.predicate == ntp::conditioned_row(m, 4 + 1, m.kb.predicates.find("s")));
  }
  CHECK(by_inverse == 34);  // one path per fact for the body atom
  const ntp::InducedRule read = ntp::read_rule(m, 0, m.kb.predicates.find("s"));
  CHECK(read.text.rfind("s(X, Y) :- ", 0) == 0);
  CHECK(ntp::to_string(m, m.rules[0], m.kb.predicates.find("u")) == "u(X, Y) :- #1[u](Y, X)");
}

TEST_CASE("with conditional rules, proof scores reach the reformulator with the gradient finite differences give") {
  for (ntp::Reformulator kind : {ntp::Reformulator::Linear, ntp::Reformulator::Attentive})
    for (int depth : {1, 2}) {
      CAPTURE(ntp::reformulator_name(kind));
      CAPTURE(depth);
      ntp::Model m = conditional_model(kind, depth, 3, 11);
      const auto a = [&](const std::string& text) { return ntp::parse_atom(text, m.kb); };
      const std::vector<ntp::Goal> goals{{a("s(b9, a9)"), -1}, {a("u(d8, c2)"), -1}, {a("r(a1, b1)"), 0}};
      const std::vector<double> labels{1, 0, 1};
      // Every path kept (k = 2 facts per step), each with gradient (a soft
      // max over them); finite differences score the same paths.
      ntp::ProverConfig two_facts = m.prover;
      two_facts.k_facts = 2;
      const auto facts = ntp::make_fact_index(m, "table");
      const ntp::Prover prover(m, *facts, two_facts);
      const ntp::ProofBatch batch = prover.search(goals);
      constexpr double kTemperature = 0.3;
      ad::Tape tape;
      const std::vector<double> plain = ntp::score_goals(m, batch);  // reads the refreshed rows
      const ad::Var best = ntp::score_goals(tape, m, batch);
      for (int g = 0; g < 3; ++g) CHECK(tape.value(best)(g, 0) == doctest::Approx(plain[static_cast<std::size_t>(g)]));
      const ad::Var scores = ntp::score_goals(tape, m, batch, kTemperature);
      tape.backward(ad::binary_cross_entropy(tape, scores, labels));
      CHECK(m.conditioning.weights.grad.norm() > 0);
      check_table_gradients(m, [&]() {
        ad::Tape t;
        return t.scalar(ad::binary_cross_entropy(t, ntp::score_goals(t, m, batch, kTemperature), labels));
      });
    }
}

TEST_CASE("the rows reachable from goals' relations hold every conditioned row their proofs compare") {
  for (int depth : {1, 2}) {
    CAPTURE(depth);
    ntp::Model m = conditional_model(ntp::Reformulator::Attentive, depth, 4, 6);
    ntp::ProverConfig two_facts = m.prover;  // every path kept (k = 0 keeps the best one)
    two_facts.k_facts = 2;
    const auto facts = ntp::make_fact_index(m, "table");
    const ntp::Prover prover(m, *facts, two_facts);
    const int first = m.num_kb_predicates + m.num_rule_slots;
    for (const std::string goal : {"s(b9, a9)", "u(d8, c2)", "r(a1, b3)"}) {
      CAPTURE(goal);
      const ntp::Atom atom = ntp::parse_atom(goal, m.kb);
      const std::vector<int> reachable = ntp::reachable_conditioned_rows(m, {atom.predicate});
      std::set<int> compared;  // conditioned rows the goal's proofs compare
      for (const ntp::Comparison& c : prover.search({{atom, -1}}).comparisons)
        if (c.table == ntp::Table::Predicate)
          for (int row : {c.a, c.b})
            if (row >= first) compared.insert(row);
      REQUIRE(!compared.empty());
      for (int row : compared) CHECK(std::count(reachable.begin(), reachable.end(), row) == 1);
      // Level 1 holds the 3 body slots on this relation alone (of 12); depth
      // 2 adds each body slot on each of those 3 rows (of 36).
      CHECK(reachable.size() == (depth == 1 ? 3u : 3u + 3u * 3u));
      CHECK(std::is_sorted(reachable.begin(), reachable.end()));
      // Scoring from a table computed for these rows alone gives the scores
      // of scoring that computes its own.
      const ntp::ProofBatch batch = prover.search({{atom, -1}});
      ad::Tape tape;
      const ntp::PartialTable table = ntp::predicate_table(tape, m, reachable);
      const ad::Var given = ntp::score_goals(tape, m, batch, 0, table);
      CHECK(tape.value(given)(0, 0) == doctest::Approx(tape.value(ntp::score_goals(tape, m, batch))(0, 0)).epsilon(1e-12));
      const ntp::PartialTable other = ntp::predicate_table(tape, m, ntp::reachable_conditioned_rows(m, {0}));
      if (atom.predicate != 0) CHECK_THROWS_AS(ntp::score_goals(tape, m, batch, 0, other), std::logic_error);
    }
  }
}

TEST_CASE("at depth 2 the reachable rows hold those a KB predicate in a rule body asks again") {
  // #1(X, Y) :- r(X, Z), #2(Z, Y): the sub-goal r asks #4 conditioned on r
  // at depth 2, a row made at level 1 for goals of r.
  std::ostringstream text;
  for (int i = 1; i <= 6; ++i) text << "r(a" << i << ",b" << i << ").\ns(b" << i << ",a" << i << ").\n";
  const ntp::KnowledgeBase kb =
      kb_from_text(text.str(), "1  #1(X, Y) :- #2(Y, X).\n1  #1(X, Y) :- r(X, Z), #3(Z, Y).\n");
  ntp::ProverConfig config;
  config.depth = 2;
  config.k_facts = 2;
  ntp::Model m = ntp::make_model(kb, 4, config, 3);
  ntp::add_conditioning(m, ntp::Reformulator::Attentive, 3);
  const auto facts = ntp::make_fact_index(m, "table");
  const ntp::Prover prover(m, *facts, m.prover);
  const ntp::Atom goal = ntp::parse_atom("s(b2, a2)", m.kb);
  const std::vector<int> reachable = ntp::reachable_conditioned_rows(m, {goal.predicate});
  const int r_row = m.kb.predicates.find("r");
  bool asks_r = false;
  for (const ntp::Comparison& c : prover.search({{goal, -1}}).comparisons)
    for (int row : {c.a, c.b})
      if (c.table == ntp::Table::Predicate && row >= m.num_kb_predicates + m.num_rule_slots) {
        CHECK(std::count(reachable.begin(), reachable.end(), row) == 1);
        asks_r = asks_r || m.conditioning.rows[static_cast<std::size_t>(row - m.num_kb_predicates - m.num_rule_slots)].source == r_row;
      }
  CHECK(asks_r);  // the case this test is for happened
}

TEST_CASE("a step moves the reformulator weights of the slots its proofs read, not of every slot it computed") {
  // Binary goals reach the unary rule's slot (its conditioned rows exist for
  // every relation), but a unary rule never proves a binary goal.
  const ntp::KnowledgeBase kb =
      kb_from_text("r(a,b).\nr(b,c).\ns(b,a).\np(a).\n", "1  #1(X, Y) :- #2(Y, X).\n1  #1(X) :- #2(X).\n");
  ntp::Model m = ntp::make_model(kb, 4, ntp::ProverConfig{}, 5);
  ntp::add_conditioning(m, ntp::Reformulator::Attentive, 5);
  std::mt19937_64 rng(5);  // weights away from 0, so that an update of an unread slot (L2) would show
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (ad::Index e = 0; e < m.conditioning.weights.value.size(); ++e) m.conditioning.weights.value.data()[e] = u(rng);
  ntp::refresh_conditioned_rows(m);
  const ntp::TrainOptions options;  // L2 1e-4, Adam
  ntp::Learner learner(m, options);
  ntp::RecallProbe probe(m, *learner.facts, options);
  ntp::TimeSplit time;
  ntp::StepTimer timer(time);
  const ad::Matrix before = m.conditioning.weights.value;
  ntp::StepGoals batch;
  batch.goals = {{ntp::parse_atom("s(c, b)", m.kb), -1}, {ntp::parse_atom("r(c, a)", m.kb), -1}};
  batch.labels = {1, 0};
  ntp::train_step(learner, probe, batch, 0, {1, 0}, timer);
  // Slot rows: #1, #2 (binary rule), #3, #4 (unary); blocks of d rows each.
  const ad::Index d = m.dim;
  CHECK(m.conditioning.weights.value.middleRows(1 * d, d) != before.middleRows(1 * d, d));  // #2: read
  CHECK(m.conditioning.weights.value.middleRows(3 * d, d) == before.middleRows(3 * d, d));  // #4: computed only
}

TEST_CASE("training leaves every conditioned row at its formula after each epoch, though steps compute only their own") {
  ntp::Model m = ntp::make_model(two_inverses_kb(), 6, ntp::ProverConfig{}, 4);
  ntp::add_conditioning(m, ntp::Reformulator::Attentive, 4);
  ntp::TrainOptions o = inverse_rule_training(4, 0.01);
  o.epochs = 2;
  int epochs_seen = 0;
  ntp::train_epochs(m, o, [&](ntp::EpochReport&) {
    ++epochs_seen;
    ntp::Model fresh = m;
    ntp::refresh_conditioned_rows(fresh);
    CHECK(fresh.predicates.value.isApprox(m.predicates.value, 1e-12));
  });
  CHECK(epochs_seen == 2);
  ntp::Model fresh = m;
  ntp::refresh_conditioned_rows(fresh);
  CHECK(fresh.predicates.value.isApprox(m.predicates.value, 1e-12));
}

TEST_CASE("a model file keeps the reformulator, and a version 4 file loads without it") {
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_conditional.ntp";
  ntp::Model plain = ntp::make_model(two_inverses_kb(), 4, ntp::ProverConfig{}, 2);
  ntp::save_model(plain, path);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Version 4 ended after the attention matrix: no reformulator kind (4
  // bytes) nor its (0, 0) weights (8 bytes).
  std::string version4 = bytes.substr(0, bytes.size() - 12);
  version4[8] = 4;
  std::ofstream(path, std::ios::binary) << version4;
  const ntp::Model old = ntp::load_model(path);
  CHECK(!ntp::has_conditioning(old));
  CHECK(old.predicates.value == plain.predicates.value);
  CHECK(old.prover.k_open == 0);  // before version 6 every atom kept k facts

  for (ntp::Reformulator kind : {ntp::Reformulator::Linear, ntp::Reformulator::Attentive}) {
    const ntp::Model m = conditional_model(kind, 2, 4, 5);
    ntp::save_model(m, path);
    const ntp::Model loaded = ntp::load_model(path);
    CHECK(loaded.conditioning.kind == kind);
    CHECK(loaded.conditioning.weights.value == m.conditioning.weights.value);
    CHECK(loaded.conditioning.rows.size() == m.conditioning.rows.size());
    CHECK(loaded.predicates.value.isApprox(m.predicates.value, 1e-15));
    for (const ntp::Rule& rule : loaded.rules) CHECK(rule.conditional);
  }
}

TEST_CASE("training with the attentive reformulator gives one inverse rule a body of its own for each relation") {
  // One copy of #1(X, Y) :- #2(Y, X): a plain rule's head can be near s or
  // near u, not both, so it can serve one of the two inverses at best.
  // Seeds 1-8 all learn both but seed 7, which reads s(X, Y) :- t(Y, X).
  for (std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    ntp::Model m = ntp::make_model(two_inverses_kb(), 10, ntp::ProverConfig{}, seed);
    ntp::add_conditioning(m, ntp::Reformulator::Attentive, seed);
    ntp::TrainOptions o = inverse_rule_training(seed, 0.01);
    o.epochs = 40;
    ntp::train_epochs(m, o);
    const ntp::InducedRule s = ntp::read_rule(m, 0, m.kb.predicates.find("s"));
    const ntp::InducedRule u = ntp::read_rule(m, 0, m.kb.predicates.find("u"));
    MESSAGE(s.text << " " << s.confidence << "; " << u.text << " " << u.confidence);
    CHECK(s.text == "s(X, Y) :- r(Y, X)");
    CHECK(u.text == "u(X, Y) :- t(Y, X)");
    CHECK(std::min(s.confidence, u.confidence) > 0.9);
  }
}

TEST_CASE("reformulators by name") {
  ntp::Reformulator kind = ntp::Reformulator::None;
  CHECK(ntp::reformulator_from_name("attentive", &kind));
  CHECK(kind == ntp::Reformulator::Attentive);
  CHECK(!ntp::reformulator_from_name("bilinear", &kind));
  ntp::Model m = ntp::make_model(two_inverses_kb(), 4, ntp::ProverConfig{}, 1);
  CHECK_THROWS_AS(ntp::add_conditioning(m, ntp::Reformulator::None, 1), std::invalid_argument);
  ntp::add_conditioning(m, ntp::Reformulator::Linear, 1);
  CHECK_THROWS_AS(ntp::add_conditioning(m, ntp::Reformulator::Linear, 1), std::invalid_argument);
}
