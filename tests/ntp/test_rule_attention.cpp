// Rule-predicate attention (ntp/rule_attention.h): the mix on the tape has
// the gradient finite differences give, the slots' rows follow the mix,
// training decodes the right relation, and model files keep the attention
// (files from before it still load).
#include "ntp/eval/evaluate.h"
#include "ntp/kb/parse.h"
#include "ntp/prover/prover.h"
#include "ntp/model/rule_attention.h"
#include "ntp/model/rules.h"
#include "ntp/train/epochs.h"

#include "inverse_rule_training.h"
#include "table_gradcheck.h"
#include "ntp/index/make_fact_index.h"

#include "kb_from_text.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace {

// r(a_i, b_i) for i = 1..10, its inverse s(b_i, a_i) for i = 1..7 only, and a
// distractor q(a_i, a_{i+1}): the held-out inverses need s(X, Y) :- r(Y, X),
// and the slot #2 must pick r among three relations.
ntp::KnowledgeBase inverse_kb() {
  std::ostringstream text;
  for (int i = 1; i <= 10; ++i) text << "r(a" << i << ",b" << i << ").\n";
  for (int i = 1; i <= 7; ++i) text << "s(b" << i << ",a" << i << ").\n";
  for (int i = 1; i <= 9; ++i) text << "q(a" << i << ",a" << i + 1 << ").\n";
  return kb_from_text(text.str(), "2  #1(X, Y) :- #2(Y, X).\n");
}

}  // namespace

TEST_CASE("attended slots are the softmax mix of the KB predicates, on and off the tape") {
  ntp::Model m = ntp::make_model(inverse_kb(), 4, ntp::ProverConfig{}, 5);
  CHECK(!ntp::has_rule_attention(m));
  ntp::add_rule_attention(m, 5);
  REQUIRE(ntp::has_rule_attention(m));
  const ad::Matrix w = ntp::rule_attention_weights(m);
  REQUIRE(w.rows() == 4);  // two rules, two slots each
  REQUIRE(w.cols() == 4);  // r, s, q, and "no relation"
  for (ad::Index s = 0; s < w.rows(); ++s) {
    CHECK(w.row(s).sum() == doctest::Approx(1.0));
    CHECK(w(s, 3) < 0.02);  // rules start on
  }
  const ad::Matrix attendable = ntp::attendable_rows(m);
  REQUIRE(attendable.rows() == 4);
  CHECK(attendable.topRows(3) == m.predicates.value.topRows(3));
  for (int p = 0; p < 3; ++p) CHECK((attendable.row(3) - attendable.row(p)).norm() > 15);  // far from every relation
  const ad::Matrix slots = w * attendable;
  CHECK(m.predicates.value.bottomRows(4).isApprox(slots));
  ad::Tape tape;
  CHECK(tape.value(ntp::attended_predicate_table(tape, m)).isApprox(m.predicates.value));
}

TEST_CASE("with attention, proof scores reach the logits with the gradient finite differences give") {
  ntp::ProverConfig exhaustive;
  exhaustive.k_facts = 0;  // the paths must not depend on the embeddings
  ntp::Model m = ntp::make_model(inverse_kb(), 5, exhaustive, 17);
  ntp::add_rule_attention(m, 17);
  const auto a = [&](const std::string& text) { return ntp::parse_atom(text, m.kb); };
  const std::vector<ntp::Goal> goals{{a("s(b9, a9)"), -1}, {a("s(b8, a2)"), -1}, {a("r(a1, b1)"), 0}};
  const std::vector<double> labels{1, 0, 1};
  const auto facts = ntp::make_fact_index(m, "table");
  ntp::Prover prover(m, *facts, m.prover);
  const ntp::ProofBatch batch = prover.search(goals);
  ad::Tape tape;
  const ad::Var scores = ntp::score_goals(tape, m, batch);
  const auto plain = ntp::score_goals(m, batch);  // reads the refreshed slot rows
  for (int g = 0; g < 3; ++g) CHECK(tape.value(scores)(g, 0) == doctest::Approx(plain[static_cast<std::size_t>(g)]));
  tape.backward(ad::binary_cross_entropy(tape, scores, labels));
  CHECK(m.rule_attention.grad.norm() > 0);
  CHECK(m.predicates.grad.bottomRows(4).norm() == 0);  // slots have no embedding of their own
  check_table_gradients(m, [&]() {
    ad::Tape t;
    return t.scalar(ad::binary_cross_entropy(t, ntp::score_goals(t, m, batch), labels));
  });
}

namespace {
// A model of inverse_kb() with attention, trained from `seed`, exploring at
// `explore` (0: hard max).
ntp::Model trained_with_attention(std::uint64_t seed, double explore) {
  ntp::Model m = ntp::make_model(inverse_kb(), 10, ntp::ProverConfig{}, seed);
  ntp::add_rule_attention(m, seed);
  ntp::TrainOptions o = inverse_rule_training(seed, 0.01);
  o.explore = explore;
  ntp::train_epochs(m, o);
  return m;
}

// The best confidence of s(X, Y) :- r(Y, X) among the model's rules (one of
// the two copies becomes the rule; the other may settle on anything, e.g.
// q's inverse, which proves nothing held out).
double inverse_rule_confidence(const ntp::Model& m) {
  double confidence = 0;
  for (const ntp::InducedRule& rule : ntp::induced_rules(m, 0.0))
    if (rule.text == "s(X, Y) :- r(Y, X)") confidence = std::max(confidence, rule.confidence);
  return confidence;
}
}  // namespace

TEST_CASE("training with attention decodes the inverse rule to the right relation") {
  // Fixed seeds, each of which learns the rule. Not every seed does: with
  // k = 1 and a hard max one rule copy can win early and starve the other
  // (seeds 7, 18 and 20 of 1-20 miss it) - the exploration problem. Before
  // slots could attend to "no relation", seeds 2 and 4 missed it too.
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    CAPTURE(seed);
    const ntp::Model m = trained_with_attention(seed, 0);
    CHECK(inverse_rule_confidence(m) > 0.9);  // an attention weight
    // The slot rows the prover searches with are the mix of the trained logits.
    const ad::Matrix slots = ntp::rule_attention_weights(m) * ntp::attendable_rows(m);
    CHECK(m.predicates.value.bottomRows(4).isApprox(slots));
  }
}


TEST_CASE("exploration learns the rule where hard-max training settles on another relation") {
  // Seeds 7, 18 and 20 are the ones where the hard max misses the rule.
  for (std::uint64_t seed : {7, 18, 20}) {
    CAPTURE(seed);
    const double hard = inverse_rule_confidence(trained_with_attention(seed, 0)),
                 soft = inverse_rule_confidence(trained_with_attention(seed, 0.1));
    MESSAGE("hard max " << hard << ", exploring " << soft);
    CHECK(hard < 0.9);
    CHECK(soft > 0.9);
  }
}

TEST_CASE("a model file keeps the attention, and a version 3 file loads without it") {
  ntp::Model m = ntp::make_model(inverse_kb(), 6, ntp::ProverConfig{}, 2);
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_attention.ntp";
  ntp::save_model(m, path);
  std::ifstream in(path, std::ios::binary);
  const std::string plain((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(!ntp::has_rule_attention(ntp::load_model(path)));

  ntp::add_rule_attention(m, 2);
  ntp::save_model(m, path);
  const ntp::Model loaded = ntp::load_model(path);
  REQUIRE(ntp::has_rule_attention(loaded));
  CHECK(loaded.rule_attention.value == m.rule_attention.value);
  CHECK(loaded.predicates.value == m.predicates.value);
  CHECK(ntp::induced_rules(loaded, 0.0).front().text == ntp::induced_rules(m, 0.0).front().text);

  // Version 3 ended after the constants' table: no (0, 0) attention matrix.
  std::string version3 = plain.substr(0, plain.size() - 8);
  version3[8] = 3;
  std::ofstream(path, std::ios::binary) << version3;
  const ntp::Model old = ntp::load_model(path);
  CHECK(!ntp::has_rule_attention(old));
  CHECK(old.predicates.value == ntp::load_model(path).predicates.value);
}
