// A prover that starts from mined rules (ntp/train/mined_templates.h):
// `--templates mined` mines the training facts, keeps a few rules a head as
// templates, and a goal tries as many of the nearest as one head has.
#include <doctest/doctest.h>

#include "kb_from_text.h"
#include "ntp/train/mined_templates.h"
#include "ntp/train/new_model.h"
#include "ntp/train/training_data.h"

#include <map>
#include <string>

namespace {

const std::string kFamily = std::string(NTP_SOURCE_DIR) + "/datasets/family";

// Templates per head predicate (the predicate a mined head slot starts at).
std::map<int, int> per_head(const std::vector<ntp::Template>& templates) {
  std::map<int, int> n;
  for (const ntp::Template& t : templates) ++n[t.slot_starts.at(static_cast<std::size_t>(t.head.predicate.id))];
  return n;
}

}  // namespace

TEST_CASE("--templates mined: a few mined rules a head, chosen on dev, each slot at its predicate") {
  const ntp::TrainingData d =
      ntp::read_training_data(kFamily + "/train.nl", "mined", kFamily + "/dev.nl", kFamily + "/test.nl");
  REQUIRE(!d.kb.templates.empty());
  int most = 0;
  for (const auto& [head, n] : per_head(d.kb.templates)) {
    CHECK(n <= ntp::kMinedTemplatesPerHead);
    most = std::max(most, n);
  }
  CHECK(d.rules_per_goal == most);
  CHECK(d.rules_per_goal == ntp::most_templates_of_one_head(d.kb.templates));
  CHECK(d.templates_note.find("dev mrr") != std::string::npos);
  const bool one_atom = d.templates_note.rfind("one-atom", 0) == 0;
  for (const ntp::Template& t : d.kb.templates) {
    CHECK(t.num_slots == static_cast<int>(t.slot_starts.size()));
    CHECK(t.mined_confidence > 0);
    CHECK(t.source == "mined");
    if (one_atom) CHECK(t.body.size() == 1);
    for (int start : t.slot_starts) CHECK((start >= 0 && start < d.kb.predicates.size()));
  }
  // Within a head the most confident come first (the miner's order).
  for (std::size_t i = 1; i < d.kb.templates.size(); ++i) {
    const ntp::Template &a = d.kb.templates[i - 1], &b = d.kb.templates[i];
    if (a.slot_starts[static_cast<std::size_t>(a.head.predicate.id)] == b.slot_starts[static_cast<std::size_t>(b.head.predicate.id)])
      CHECK(a.mined_confidence >= b.mined_confidence);
  }
  // A template file read the ordinary way is not touched.
  CHECK(ntp::read_training_data(kFamily + "/train.nl", kFamily + "/family.nlt").rules_per_goal == 0);
}

TEST_CASE("--templates mined without dev facts: the chains, and a planted inverse among them") {
  ntp::TrainingData d;
  d.kb = kb_from_text(
      "p(a, b).\np(b, c).\np(c, d).\np(d, e).\nq(b, a).\nq(c, b).\nq(d, c).\nq(e, d).\nr(a, c).\nr(b, d).\n");
  const ntp::MinedTemplateSet set = ntp::mine_templates(d);
  CHECK(set.description.find("no ranked dev facts") != std::string::npos);
  const int p = d.kb.predicates.find("p"), q = d.kb.predicates.find("q");
  bool inverse = false;
  for (const ntp::Template& t : set.templates)
    if (t.slot_starts.size() == 2 && t.slot_starts[0] == p && t.slot_starts[1] == q) {
      inverse = true;
      CHECK(t.mined_confidence == doctest::Approx(1.0));
      CHECK(t.body[0].args[0].id == t.head.args[1].id);  // p(X, Y) :- q(Y, X)
    }
  CHECK(inverse);
}

TEST_CASE("a model over mined templates tries as many rules as one head has, unless --k-rules says otherwise") {
  const ntp::TrainingData d =
      ntp::read_training_data(kFamily + "/train.nl", "mined", kFamily + "/dev.nl", kFamily + "/test.nl");
  REQUIRE(d.rules_per_goal > 0);
  ntp::ModelOptions o;
  o.dim = 8;
  CHECK(ntp::new_model(d, o).prover.k_rules == d.rules_per_goal);
  o.prover.k_rules = 3;
  CHECK(ntp::new_model(d, o).prover.k_rules == 3);
}
