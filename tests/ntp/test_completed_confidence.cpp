// tests/ntp/test_completed_confidence.cpp: mined rules judged on the facts a
// model completes, against a reference that walks every pair of constants.
#include <doctest/doctest.h>

#include "rule_reference.h"
#include "ntp/eval/completed_confidence.h"
#include "ntp/eval/evaluate.h"
#include "ntp/model/model.h"

namespace {

// The reference: every pair the body connects, its head a training fact or
// scored by the model (score_atoms, the function the judge uses) >= 0.5.
ntp::CompletedConfidence reference(const ntp::Model& model, const ntp::MinedRule& rule) {
  ntp::CompletedConfidence c;
  const int n = model.kb.constants.size();
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y) {
      if (!body_connects(model.kb, rule, x, y)) continue;
      ++c.pairs;
      const ntp::Atom head{rule.head, {x, y}};
      if (model.kb.contains(head)) ++c.facts;
      else if (ntp::score_atoms(model, {head}).front() >= ntp::kBelievedScore) ++c.inferred;
    }
  c.confidence = c.pairs == 0 ? 0.0 : static_cast<double>(c.facts + c.inferred) / static_cast<double>(c.pairs);
  return c;
}

}  // namespace

TEST_CASE("completed_confidences equal the reference on random KBs, and judge a sample of a large body") {
  long long inferred = 0, unbelieved = 0;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::vector<ntp::Atom> held_out;
    const ntp::KnowledgeBase kb = random_split(seed, 9, 70, 5, held_out);
    const std::vector<ntp::MinedRule> rules = mine_every_rule(kb, seed % 2 == 0 ? 3 : 2);
    REQUIRE(!rules.empty());
    // Dim 2: many heads that are not facts score above 0.5 and many below.
    const ntp::Model model = ntp::make_model(kb, 2, ntp::ProverConfig{}, seed);
    const auto judged = ntp::completed_confidences(model, rules, {}, 1 << 20);
    REQUIRE(judged.size() == rules.size());
    for (std::size_t r = 0; r < rules.size(); ++r) {
      const ntp::CompletedConfidence want = reference(model, rules[r]);
      CAPTURE(seed);
      CAPTURE(r);
      CHECK(judged[r].pairs == want.pairs);
      CHECK(judged[r].facts == want.facts);
      CHECK(judged[r].inferred == want.inferred);
      CHECK(judged[r].confidence == doctest::Approx(want.confidence));
      // Counting saw the same pairs and facts.
      CHECK(judged[r].pairs == static_cast<long long>(rules[r].body_pairs));
      CHECK(judged[r].facts == rules[r].support);
      inferred += judged[r].inferred;
      unbelieved += judged[r].pairs - judged[r].facts - judged[r].inferred;
    }
    // At most 3 pairs a rule: a sample, the same on every call.
    const auto sampled = ntp::completed_confidences(model, rules, {}, 3);
    const auto again = ntp::completed_confidences(model, rules, {}, 3);
    for (std::size_t r = 0; r < rules.size(); ++r) {
      CHECK(sampled[r].pairs == std::min<long long>(3, judged[r].pairs));
      CHECK(sampled[r].facts + sampled[r].inferred <= sampled[r].pairs);
      CHECK(sampled[r].confidence == again[r].confidence);
    }
  }
  // Both ways of judging a pair that is not a fact were exercised.
  CHECK(inferred > 0);
  CHECK(unbelieved > 0);
}

TEST_CASE("random_belief_rate: all random atoms held true when every embedding coincides, none when far apart") {
  std::vector<ntp::Atom> held_out;
  const ntp::KnowledgeBase kb = random_split(3, 12, 80, 5, held_out);
  ntp::Model model = ntp::make_model(kb, 4, ntp::ProverConfig{}, 3);
  const double rate = ntp::random_belief_rate(model);
  CHECK(rate >= 0);
  CHECK(rate <= 1);
  CHECK(ntp::random_belief_rate(model) == rate);  // a fixed draw
  model.constants.value.setZero();
  model.predicates.value.setZero();
  CHECK(ntp::random_belief_rate(model) == 1.0);
  ntp::Model far = ntp::make_model(kb, 4, ntp::ProverConfig{}, 3);
  far.constants.value *= 1000;
  far.predicates.value *= 1000;
  CHECK(ntp::random_belief_rate(far) == 0.0);
}
