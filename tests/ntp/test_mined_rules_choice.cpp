// tests/ntp/test_mined_rules_choice.cpp: mined rules beside a model's score
// (train/mined_rules_choice.h): chosen on dev, kept in the model file, used
// by evaluation, answers and proofs.
#include <doctest/doctest.h>

#include "ntp/eval/protocol.h"
#include "ntp/eval/rule_ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/mine/miner.h"
#include "ntp/model/model.h"
#include "ntp/ntp.h"
#include "ntp/train/mined_rules_choice.h"
#include "ntp/train/rule_choice.h"
#include "ntp/train/training_data.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace {

// likes(X, Y) holds exactly when knows(Y, X) does: a rule counting finds at
// once, and an untrained model does not know. Every fifth likes fact is held
// out as dev, every fifth after it as test.
ntp::TrainingData inverse_kb() {
  std::string facts;
  for (int i = 0; i < 40; ++i) {
    const std::string a = "c" + std::to_string(i), b = "c" + std::to_string((i * 7 + 3) % 40);
    facts += "knows(" + b + ", " + a + ").\n";
    if (i % 5 != 0 && i % 5 != 1) facts += "likes(" + a + ", " + b + ").\n";
  }
  ntp::TrainingData data = ntp::training_data_from_text(facts, "2 #1(X, Y) :- #2(Y, X).");
  for (int i = 0; i < 40; ++i) {
    const int a = data.kb.constants.find("c" + std::to_string(i)), b = data.kb.constants.find("c" + std::to_string((i * 7 + 3) % 40));
    const ntp::Atom likes{data.kb.predicates.find("likes"), {a, b}};
    if (i % 5 == 0) data.dev.push_back(likes);
    if (i % 5 == 1) data.test.push_back(likes);
  }
  return data;
}

// A ranking request for `test`, written to `file` in the build folder.
ntp::EvalRequest ranking_request(const ntp::Model& model, const std::vector<ntp::Atom>& test, const std::string& file) {
  ntp::EvalRequest q;
  q.protocol = "ranking";
  q.test = std::string(NTP_BINARY_DIR) + "/" + file;
  std::ofstream out(q.test);
  for (const ntp::Atom& a : test) out << ntp::to_string(model.kb, a) << ".\n";
  return q;
}

}  // namespace

TEST_CASE("choose_mined_rules keeps mined rules that rank dev better than the model, and they rank in eval") {
  const ntp::TrainingData data = inverse_kb();
  REQUIRE(ntp::can_choose_mined_rules(data));
  ntp::Model model = ntp::make_model(data.kb, 8, ntp::ProverConfig{}, 1);
  model.filter_facts = data.dev;
  model.filter_facts.insert(model.filter_facts.end(), data.test.begin(), data.test.end());
  const ntp::MinedRulesChoice choice = ntp::choose_mined_rules(model, data);
  MESSAGE(ntp::describe(choice));
  REQUIRE(choice.measured);
  CHECK(choice.dev_atoms == data.dev.size());
  REQUIRE(choice.weights.size() == 1 + std::size(ntp::kRuleWeights));  // a small KB: the finite weights too
  CHECK(std::isinf(choice.weights.front().first));
  CHECK(choice.weights.front().second == doctest::Approx(1.0));  // the inverse predicts each dev fact, alone
  CHECK(choice.model_alone < 0.5);
  REQUIRE(choice.kept);
  CHECK(std::isinf(choice.chosen_weight));  // the first of the best: later weights only tie it
  CHECK(model.mined_rules.size() == choice.rules);
  CHECK(std::isinf(model.mined_rule_weight));
  // A choice between finished runs ranks dev as the kept model does: with its rules.
  CHECK(ntp::dev_metric_with_kept_rules(model, data) == doctest::Approx(choice.weights.front().second));

  // The model file keeps them; `ntp eval` ranks with them unless --score names a part.
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_mined_rules_choice.ntp";
  ntp::save_model(model, path);
  const ntp::Model loaded = ntp::load_model(path);
  REQUIRE(loaded.mined_rules.size() == model.mined_rules.size());
  for (std::size_t i = 0; i < model.mined_rules.size(); ++i) {
    CHECK(loaded.mined_rules[i].body == model.mined_rules[i].body);
    CHECK(loaded.mined_rules[i].confidence == model.mined_rules[i].confidence);
  }
  ntp::EvalRequest q = ranking_request(loaded, data.test, "test_mined_rules_choice_test.nl");
  const ntp::EvalReport with_rules = ntp::evaluate(loaded, q);
  CHECK(with_rules.note.find("mined rules first") != std::string::npos);
  CHECK(with_rules.lines.front().rfind("MRR 1.0000", 0) == 0);
  q.score = "proof";
  const ntp::EvalReport proofs = ntp::evaluate(loaded, q);
  CHECK(proofs.note.empty());
  CHECK(proofs.lines.front().rfind("MRR 1.0000", 0) != 0);

  // Answers put the constants the rules predict first, as the ranking does.
  const ntp::Reasoner reasoner(loaded);
  for (const ntp::Atom& fact : data.test) {
    const std::string query = "likes(" + loaded.kb.constants.name(fact.args[0]) + ", X)";
    const std::vector<ntp::Answer> answers = reasoner.answer(query, 3);
    REQUIRE(answers.size() == 3);
    CAPTURE(query);
    CHECK(answers[0].atom == ntp::to_string(loaded.kb, fact));  // knows(b, a): the one constant predicted
    CHECK(answers[0].mined_rule == "likes(X, Y) :- knows(Y, X)");
    for (std::size_t i = 1; i < answers.size(); ++i)  // what no rule predicts comes after what some rule does
      CHECK((answers[i].mined_rule.empty() || !answers[i - 1].mined_rule.empty()));
  }
  // prove says which rule predicts an atom, and nothing for one no rule predicts.
  const ntp::Explanation predicted = reasoner.prove(data.test.front(), 1);
  CHECK_FALSE(predicted.mined_rule.empty());
  CHECK(predicted.mined_rules >= 1);
  CHECK(predicted.mined_confidence > 0);
  const ntp::Explanation unpredicted = reasoner.prove("likes(c0, c0)", 1);
  CHECK(unpredicted.mined_rule.empty());
  CHECK(unpredicted.mined_rules == 0);
  const std::vector<ntp::InducedRule> listed = reasoner.mined_rules();
  CHECK(listed.size() == loaded.mined_rules.size());
  CHECK(std::any_of(listed.begin(), listed.end(), [](const ntp::InducedRule& r) { return r.text == "likes(X, Y) :- knows(Y, X)"; }));
  CHECK(std::is_sorted(listed.begin(), listed.end(), [](const ntp::InducedRule& a, const ntp::InducedRule& b) { return a.confidence > b.confidence; }));

  // A version 6 file, without the section, loads with no rules.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  bytes[8] = 6;
  std::ofstream(path, std::ios::binary) << bytes;
  CHECK(ntp::load_model(path).mined_rules.empty());
}

TEST_CASE("a large KB tries the finite rule weights only when the model scores with ComplEx alone") {
  // inverse_kb's facts and a chain of more constants than the finite weights'
  // limit: scoring every constant of a side with proofs is what they cost.
  std::string facts;
  for (int i = 0; i < 40; ++i) {
    const std::string a = "c" + std::to_string(i), b = "c" + std::to_string((i * 7 + 3) % 40);
    facts += "knows(" + b + ", " + a + ").\n";
    if (i % 5 != 0) facts += "likes(" + a + ", " + b + ").\n";
  }
  for (int i = 0; i < ntp::kMaxConstantsForRuleWeights; ++i)
    facts += "next(d" + std::to_string(i) + ", d" + std::to_string(i + 1) + ").\n";
  ntp::TrainingData data = ntp::training_data_from_text(facts, "2 #1(X, Y) :- #2(Y, X).");
  for (int i = 0; i < 40; i += 5) {
    const int a = data.kb.constants.find("c" + std::to_string(i)), b = data.kb.constants.find("c" + std::to_string((i * 7 + 3) % 40));
    data.dev.push_back({data.kb.predicates.find("likes"), {a, b}});
  }
  REQUIRE(data.kb.constants.size() > ntp::kMaxConstantsForRuleWeights);
  ntp::ProverConfig config;
  config.complex = true;
  for (const ntp::Combine rule : {ntp::Combine::Mean, ntp::Combine::Complex}) {
    ntp::Model model = ntp::make_model(data.kb, 8, config, 1);
    model.prover.combine = rule;
    const ntp::MinedRulesChoice choice = ntp::choose_mined_rules(model, data);
    CAPTURE(ntp::combine_name(rule));
    MESSAGE(ntp::describe(choice));
    REQUIRE(choice.measured);
    CHECK(choice.weights.size() == (rule == ntp::Combine::Complex ? 1 + std::size(ntp::kRuleWeights) : 1));
    CHECK(std::isinf(choice.weights.front().first));
  }
}

TEST_CASE("choose_mined_rules leaves the model alone without ranked dev facts, and when the rules do not help") {
  ntp::TrainingData data = inverse_kb();
  ntp::Model model = ntp::make_model(data.kb, 8, ntp::ProverConfig{}, 1);
  ntp::TrainingData no_dev = data;
  no_dev.dev.clear();
  CHECK_FALSE(ntp::can_choose_mined_rules(no_dev));
  CHECK_FALSE(ntp::choose_mined_rules(model, no_dev).measured);
  // Dev facts the rules get wrong: likes(a, b) with knows(b, a) false, so
  // the rules put the true constant below those they predict.
  data.dev.clear();
  for (const ntp::Atom& f : data.kb.facts)
    if (f.predicate == data.kb.predicates.find("knows"))  // knows(b, a): likes(a, b + 1) instead of likes(a, b)
      data.dev.push_back({data.kb.predicates.find("likes"), {f.args[1], (f.args[0] + 1) % 40}});
  const ntp::MinedRulesChoice choice = ntp::choose_mined_rules(model, data);
  MESSAGE(ntp::describe(choice));
  REQUIRE(choice.measured);
  for (const auto& [weight, mrr] : choice.weights) CHECK(mrr <= choice.model_alone);
  CHECK_FALSE(choice.kept);
  CHECK(model.mined_rules.empty());
  CHECK(ntp::dev_metric_with_kept_rules(model, data) == doctest::Approx(choice.model_alone));
}

TEST_CASE("a finite weight adds the best rule's confidence to the score, alike in eval, answer and prove") {
  const ntp::TrainingData data = inverse_kb();
  ntp::Model model = ntp::make_model(data.kb, 8, ntp::ProverConfig{}, 1);
  ntp::MineOptions mine;
  mine.constant_rules = false;
  model.mined_rules = ntp::mine_rules(model.kb, mine).rules;
  REQUIRE(!model.mined_rules.empty());
  model.mined_rule_weight = 0.5;
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_mined_rule_weight.ntp";
  ntp::save_model(model, path);
  const ntp::Model loaded = ntp::load_model(path);
  CHECK(loaded.mined_rule_weight == 0.5);
  ntp::Model damaged = loaded;
  damaged.mined_rule_weight = 0;  // no weight the choice makes: a damaged file
  const std::string damaged_path = path + ".damaged";
  ntp::save_model(damaged, damaged_path);
  CHECK_THROWS_AS(ntp::load_model(damaged_path), std::runtime_error);
  const ntp::Reasoner reasoner(loaded);
  ntp::ScoreOptions scoring;
  scoring.facts = ntp::make_fact_index(loaded, "exact");
  for (const ntp::Atom& fact : data.test) {
    // The reference: every constant's score plus half its best rule's confidence.
    const std::vector<ntp::RulePrediction> predicted =
        ntp::predict_by_rules(ntp::RelationGraph(loaded.kb), loaded.mined_rules, fact, 1);
    std::vector<ntp::Atom> atoms(static_cast<std::size_t>(loaded.kb.constants.size()), fact);
    for (std::size_t c = 0; c < atoms.size(); ++c) atoms[c].args[1] = static_cast<int>(c);
    const std::vector<double> scores = ntp::score_atoms(loaded, atoms, scoring);
    std::vector<double> total = scores;
    for (const ntp::RulePrediction& p : predicted) total[static_cast<std::size_t>(p.constant)] += 0.5 * p.confidences.front();
    const auto best = std::max_element(total.begin(), total.end()) - total.begin();
    const std::vector<ntp::Answer> answers = reasoner.answer("likes(" + loaded.kb.constants.name(fact.args[0]) + ", X)", 1);
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].atom == ntp::to_string(loaded.kb, atoms[static_cast<std::size_t>(best)]));
    const ntp::Explanation e = reasoner.prove(atoms[static_cast<std::size_t>(best)], 1);
    CHECK(e.mined_weight == 0.5);
    CHECK(e.score + 0.5 * e.mined_confidence == doctest::Approx(total[static_cast<std::size_t>(best)]));
  }
  // eval ranks as rank_with_rule_evidence does.
  const ntp::EvalReport report = ntp::evaluate(loaded, ranking_request(loaded, data.test, "test_mined_rule_weight_test.nl"));
  CHECK(report.note.find("0.5 x the rules' best confidence added") != std::string::npos);
  const auto known = ntp::filter_set(loaded, data.test);
  const ntp::RankingResult expected = ntp::rank_with_rule_evidence(loaded, loaded.mined_rules, {0.5}, data.test, known, scoring).front();
  char line[32];
  std::snprintf(line, sizeof line, "MRR %.4f", expected.mean_ties.mrr);
  CHECK(report.lines.front().rfind(line, 0) == 0);
}

TEST_CASE("choose_mined_rules tries rules with a constant, and a model keeps them where they rank dev best") {
  // likes(X, bob) holds for whoever knows alice, likes(X, dave) for whoever
  // knows carol, and each likes a thing of their own: a chain rule reaches
  // bob only beside those things (likes(X, Y) :- knows(X, Z), knows(W, Z),
  // likes(W, Y) ties them), a rule with a constant reaches bob alone.
  std::string facts;
  for (int i = 0; i < 60; ++i) {
    const std::string p = "p" + std::to_string(i);
    const bool alice = i % 3 == 0;
    facts += "knows(" + p + ", " + (alice ? "alice" : "carol") + ").\n";
    facts += "likes(" + p + ", thing" + std::to_string(i) + ").\n";
    if (i % 9 != 0 && i % 9 != 1) facts += "likes(" + p + ", " + (alice ? "bob" : "dave") + ").\n";
  }
  ntp::TrainingData data = ntp::training_data_from_text(facts, "2 #1(X, Y) :- #2(Y, X).");
  const int likes = data.kb.predicates.find("likes");
  for (int i = 0; i < 60; ++i) {
    const ntp::Atom held{likes, {data.kb.constants.find("p" + std::to_string(i)), data.kb.constants.find(i % 3 == 0 ? "bob" : "dave")}};
    if (i % 9 == 0) data.dev.push_back(held);
    if (i % 9 == 1) data.test.push_back(held);
  }
  ntp::Model model = ntp::make_model(data.kb, 8, ntp::ProverConfig{}, 1);
  const ntp::MinedRulesChoice choice = ntp::choose_mined_rules(model, data);
  MESSAGE(ntp::describe(choice));
  REQUIRE(choice.kept);
  // Two relations: chains of three too, each without and with the rules with a constant.
  CHECK(choice.rule_set.rfind("chains of three and constants (dev mrr on ", 0) == 0);
  for (const char* set : {"chains of three ", "chains ", "chains and constants ", "one-atom "})
    CHECK(choice.rule_set.find(set) != std::string::npos);
  CHECK(std::any_of(model.mined_rules.begin(), model.mined_rules.end(), [](const ntp::MinedRule& r) { return ntp::has_constant(r); }));
  // Mined again as the choice mined them (a model trained on more facts), the same rules.
  const std::vector<ntp::MinedRule> again = ntp::mine_rules_like(data.kb, model.mined_rules);
  REQUIRE(again.size() == model.mined_rules.size());
  for (std::size_t i = 0; i < again.size(); ++i) CHECK(ntp::rule_text(data.kb, again[i]) == ntp::rule_text(data.kb, model.mined_rules[i]));
  // The test facts rank first by the kept rules, through the model file.
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_mined_constant_rules.ntp";
  ntp::save_model(model, path);
  const ntp::Model loaded = ntp::load_model(path);
  const ntp::EvalReport report = ntp::evaluate(loaded, ranking_request(loaded, data.test, "test_mined_constant_rules_test.nl"));
  CHECK(report.lines.front().rfind("MRR 1.0000", 0) == 0);
}

TEST_CASE("with_and_without_constants splits a rule set by its rules with a constant") {
  const ntp::TrainingData data = ntp::training_data_from_text("r(a, b).\nr(b, c).\nr(c, b).\ns(a, b).\ns(b, c).\n");
  ntp::MinedRule chain, constant;
  chain.head = 0, chain.body = {2};  // r(X, Y) :- s(X, Y)
  constant = chain;
  constant.constant_arg = 1, constant.head_constant = 1;  // r(X, b) :- s(X, Z)
  const auto sets = ntp::with_and_without_constants("chains", {chain, constant});
  REQUIRE(sets.size() == 2);
  CHECK(sets[0].first == "chains");
  CHECK(sets[0].second.size() == 1);
  CHECK(!ntp::has_constant(sets[0].second[0]));
  CHECK(sets[1].first == "chains and constants");
  CHECK(sets[1].second.size() == 2);
  const auto alone = ntp::with_and_without_constants("chains", {chain});
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].first == "chains");
}

TEST_CASE("chains of three are tried on a small KB of many predicates, as a KB partly stated in text is") {
  // 20 predicates: (2 x 20)^3 = 64,000 bodies, above kMaxThreeAtomBodies, on 200 facts.
  std::string facts;
  for (int i = 0; i < 200; ++i)
    facts += "r" + std::to_string(i % 20) + "(p" + std::to_string(i % 50) + ", p" + std::to_string((i * 7 + 3) % 50) + ").\n";
  ntp::TrainingData data = ntp::training_data_from_text(facts, "");
  for (int c = 1; data.dev.size() < 2; ++c) {  // two atoms of r0 that are no facts
    const ntp::Atom atom{0, {0, c}};
    if (!data.kb.contains(atom)) data.dev.push_back(atom);
  }
  REQUIRE(data.kb.predicates.size() == 20);
  REQUIRE(64000 > ntp::kMaxThreeAtomBodies);
  ntp::Model model = ntp::make_model(data.kb, 8, ntp::ProverConfig{}, 1);
  const ntp::MinedRulesChoice choice = ntp::choose_mined_rules(model, data);
  CAPTURE(ntp::describe(choice));
  CHECK(ntp::describe(choice).find("chains of three") != std::string::npos);
}
