// The public API (ntp/ntp.h) as an embedding program uses it: a KB built in
// memory, trained, saved, loaded, and asked to prove, answer, score and read
// its rules; and the errors it reports.
#include "ntp/ntp.h"

#include "../dot_graph.h"
#include "inverse_rule_training.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace {

// r(a_i, b_i) for i = 1..10 and the inverse s(b_i, a_i) for i = 1..7: only a
// rule s(X, Y) :- r(Y, X) proves s(b8, a8).
std::string inverse_facts() {
  std::ostringstream text;
  for (int i = 1; i <= 10; ++i) text << "r(a" << i << ",b" << i << ").\n";
  for (int i = 1; i <= 7; ++i) text << "s(b" << i << ",a" << i << ").\n";
  return text.str();
}

// A model trained on the inverse KB, from text in memory, and loaded back.
const ntp::Reasoner& trained() {
  static const ntp::Reasoner reasoner = [] {
    omp_set_num_threads(1);
    ntp::ModelOptions mo;
    mo.dim = 10;
    mo.seed = 3;
    mo.prover = ntp::ProverConfig{};  // the plain prover: scores are proof scores
    ntp::RunOptions run;
    run.model_path = std::string(NTP_BINARY_DIR) + "/api_test.ntp";
    const ntp::RunResult result =
        ntp::train(ntp::training_data_from_text(inverse_facts(), "2  #1(X, Y) :- #2(Y, X).\n"), mo,
                   inverse_rule_training(3, 0.05), run, nullptr);
    ntp::Reasoner loaded = ntp::Reasoner::load(run.model_path);
    std::remove(run.model_path.c_str());
    std::remove(result.checkpoint.c_str());
    return loaded;
  }();
  return reasoner;
}

}  // namespace

TEST_CASE("prove gives the score and the best proofs as data: steps, rule or fact, substitution, scores") {
  const ntp::Explanation e = trained().prove("s(b8, a8)", 2);
  CHECK(e.atom == "s(b8, a8)");
  REQUIRE(!e.proofs.empty());
  CHECK(e.proofs.size() <= 2);
  CHECK(e.score == doctest::Approx(e.proofs[0].score));
  CHECK(e.score > 0.5);  // the inverse rule was learnt
  const ntp::Proof& best = e.proofs[0];
  REQUIRE(best.steps.size() == 2);  // the rule, then the fact r(a8, b8)
  const ntp::Step& rule = best.steps[0];
  CHECK(rule.by_rule);
  CHECK(rule.depth == 0);
  CHECK(rule.goal == "s(b8, a8)");
  CHECK(rule.reading == "s(X, Y) :- r(Y, X)");
  REQUIRE(rule.substitution.size() == 2);
  CHECK(rule.substitution[0].variable == "X");
  CHECK(rule.substitution[0].value == "b8");
  CHECK(rule.matches.size() == 1);  // s ~ #1: the head's arguments are variables
  const ntp::Step& fact = best.steps[1];
  CHECK(!fact.by_rule);
  CHECK(fact.depth == 1);
  CHECK(fact.used == "r(a8, b8)");
  double path = 1;
  for (const ntp::Step& s : best.steps) {
    for (const ntp::SymbolMatch& m : s.matches) CHECK(s.score <= m.score);
    path = std::min(path, s.score);
  }
  CHECK(best.score == doctest::Approx(path));
  // The batch score agrees with the explanation.
  const std::vector<double> scores = trained().score({"s(b8, a8)", "s(b8, a2)"});
  CHECK(scores[0] == doctest::Approx(e.score));
  CHECK(scores[1] < scores[0]);
}

TEST_CASE("answer ranks the bindings of a query's variables, each with its best proof") {
  const std::vector<ntp::Answer> answers = trained().answer("s(b9, X)", 3);
  REQUIRE(answers.size() == 3);
  CHECK(answers[0].atom == "s(b9, a9)");
  REQUIRE(answers[0].bindings.size() == 1);
  CHECK(answers[0].bindings[0].variable == "X");
  CHECK(answers[0].bindings[0].value == "a9");
  CHECK(!answers[0].known);
  CHECK(!answers[0].best_proof.steps.empty());
  CHECK(answers[0].score >= answers[1].score);
  CHECK(answers[1].score >= answers[2].score);
  // A known fact is an answer too, marked as such; a repeated variable takes one value.
  CHECK(trained().answer("s(b1, X)", 1)[0].known);
  for (const ntp::Answer& a : trained().answer("r(X, X)", 5)) CHECK(a.bindings.size() == 1);
  // A ground query has one answer, itself.
  CHECK(trained().answer("s(b8, a8)", 5).size() == 1);
}

TEST_CASE("the induced rules, and a proof as dot text with one node per step") {
  const std::vector<ntp::InducedRule> rules = trained().rules(0.0);
  CHECK(rules.size() == 2);
  const ntp::Explanation e = trained().prove("s(b8, a8)", 1);
  const DotGraph g = DotGraph::parse(ntp::to_dot(e));
  CHECK(g.count("s") == static_cast<int>(e.proofs[0].steps.size()));
  CHECK(g.nodes.count("q") == 1);
  for (const auto& [node, degree] : g.in_degree()) CHECK(degree == (node == "q" ? 0 : 1));  // a tree
  // Several proofs share their common first steps: still a tree, each step once.
  const ntp::Explanation many = trained().prove("s(b8, a8)", 4);
  const DotGraph t = DotGraph::parse(ntp::to_dot(many));
  for (const auto& [node, degree] : t.in_degree()) CHECK(degree == (node == "q" ? 0 : 1));
  CHECK(t.count("p") == static_cast<int>(many.proofs.size()));
  const std::string json = ntp::to_json(e);
  CHECK(json.rfind("{\"atom\":\"s(b8, a8)\"", 0) == 0);
  CHECK(json.find("\"substitution\":{\"X\":\"b8\",\"Y\":\"a8\"}") != std::string::npos);
}

TEST_CASE("errors say what was wrong and where") {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  CHECK(message([] { trained().prove("s(b8, nobody)"); }).find("atom:1:7: unknown constant 'nobody'") != std::string::npos);
  CHECK(message([] { trained().prove("s(b8, X)"); }).find("variables are not allowed") != std::string::npos);
  CHECK(message([] { trained().answer("t(X, a1)"); }).find("query:1:1: unknown predicate 't'") != std::string::npos);
  CHECK(message([] { ntp::training_data_from_text("r(a,b).\nr(a\n"); }).find("facts:2:") != std::string::npos);
  CHECK(message([] { ntp::Reasoner::load("/no/such/model.ntp"); }).find("/no/such/model.ntp: cannot open") != std::string::npos);
  CHECK(message([] { ntp::read_training_data("/no/such/train.nl"); }).find("/no/such/train.nl") != std::string::npos);
  ntp::ModelOptions deep;
  deep.prover.depth = 99;
  ntp::RunOptions run;
  run.model_path = std::string(NTP_BINARY_DIR) + "/never_trained.ntp";
  CHECK(message([&] { ntp::train(ntp::training_data_from_text("r(a,b).\n"), deep, {}, run, nullptr); })
            .find("depth must be in 0..8") != std::string::npos);
  ntp::TrainOptions no_batch;
  no_batch.batch = 0;
  CHECK(message([&] { ntp::train(ntp::training_data_from_text("r(a,b).\n"), {}, no_batch, run, nullptr); }) ==
        "the batch (positives per step) must be >= 1, got 0");
  CHECK(!std::ifstream(run.model_path));  // refused before anything was written
}
