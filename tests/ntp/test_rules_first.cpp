// tests/ntp/test_rules_first.cpp: mined rules ranked before a model's score
// (train/rules_first.h): chosen on dev, kept in the model file, used by
// evaluation.
#include <doctest/doctest.h>

#include "ntp/eval/protocol.h"
#include "ntp/eval/rule_ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/model/model.h"
#include "ntp/ntp.h"
#include "ntp/train/rules_first.h"
#include "ntp/train/training_data.h"

#include <algorithm>
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

}  // namespace

TEST_CASE("choose_rules_first keeps mined rules that rank dev better than the model, and they rank in eval") {
  const ntp::TrainingData data = inverse_kb();
  REQUIRE(ntp::can_choose_rules_first(data));
  ntp::Model model = ntp::make_model(data.kb, 8, ntp::ProverConfig{}, 1);
  model.filter_facts = data.dev;
  model.filter_facts.insert(model.filter_facts.end(), data.test.begin(), data.test.end());
  const ntp::RulesFirstChoice choice = ntp::choose_rules_first(model, data);
  MESSAGE(ntp::describe(choice));
  REQUIRE(choice.measured);
  CHECK(choice.dev_atoms == data.dev.size());
  CHECK(choice.with_rules == doctest::Approx(1.0));  // the inverse predicts each dev fact, alone
  CHECK(choice.model_alone < 0.5);
  REQUIRE(choice.kept);
  CHECK(model.rules_first.size() == choice.rules);

  // The model file keeps them; `ntp eval` ranks with them unless --score names a part.
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_rules_first.ntp";
  ntp::save_model(model, path);
  const ntp::Model loaded = ntp::load_model(path);
  REQUIRE(loaded.rules_first.size() == model.rules_first.size());
  for (std::size_t i = 0; i < model.rules_first.size(); ++i) {
    CHECK(loaded.rules_first[i].body == model.rules_first[i].body);
    CHECK(loaded.rules_first[i].confidence == model.rules_first[i].confidence);
  }
  const std::string test_path = std::string(NTP_BINARY_DIR) + "/test_rules_first_test.nl";
  {
    std::ofstream out(test_path);
    for (const ntp::Atom& a : data.test) out << ntp::to_string(loaded.kb, a) << ".\n";
  }
  ntp::EvalRequest q;
  q.protocol = "ranking";
  q.test = test_path;
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
  const std::vector<ntp::InducedRule> listed = reasoner.mined_rules_first();
  CHECK(listed.size() == loaded.rules_first.size());
  CHECK(std::any_of(listed.begin(), listed.end(), [](const ntp::InducedRule& r) { return r.text == "likes(X, Y) :- knows(Y, X)"; }));
  CHECK(std::is_sorted(listed.begin(), listed.end(), [](const ntp::InducedRule& a, const ntp::InducedRule& b) { return a.confidence > b.confidence; }));

  // A version 6 file, without the section, loads with no rules.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  bytes[8] = 6;
  std::ofstream(path, std::ios::binary) << bytes;
  CHECK(ntp::load_model(path).rules_first.empty());
}

TEST_CASE("choose_rules_first leaves the model alone without ranked dev facts, and when the rules do not help") {
  ntp::TrainingData data = inverse_kb();
  ntp::Model model = ntp::make_model(data.kb, 8, ntp::ProverConfig{}, 1);
  ntp::TrainingData no_dev = data;
  no_dev.dev.clear();
  CHECK_FALSE(ntp::can_choose_rules_first(no_dev));
  CHECK_FALSE(ntp::choose_rules_first(model, no_dev).measured);
  // Dev facts the rules get wrong: likes(a, b) with knows(b, a) false, so
  // the rules put the true constant below those they predict.
  data.dev.clear();
  for (const ntp::Atom& f : data.kb.facts)
    if (f.predicate == data.kb.predicates.find("knows"))  // knows(b, a): likes(a, b + 1) instead of likes(a, b)
      data.dev.push_back({data.kb.predicates.find("likes"), {f.args[1], (f.args[0] + 1) % 40}});
  const ntp::RulesFirstChoice choice = ntp::choose_rules_first(model, data);
  MESSAGE(ntp::describe(choice));
  REQUIRE(choice.measured);
  CHECK(choice.with_rules <= choice.model_alone);
  CHECK_FALSE(choice.kept);
  CHECK(model.rules_first.empty());
}
