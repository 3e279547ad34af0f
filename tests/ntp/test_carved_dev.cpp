// tests/ntp/test_carved_dev.cpp: a run given no dev facts holds some out of
// its training facts, makes its choices on them, then trains on every fact
// with the values chosen (train/carved_dev.h).
#include "run_files.h"
#include "ntp/ntp.h"
#include "ntp/train/carved_dev.h"
#include "ntp/train/checkpoint.h"
#include "ntp/train/mined_templates.h"
#include "ntp/train/mined_rules_choice.h"
#include "ntp/train/train.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

// 60 facts: r(a_i, b_i) and s(b_i, a_i), an inverse rule to find.
ntp::TrainingData sixty_facts() {
  std::ostringstream facts;
  for (int i = 1; i <= 30; ++i) facts << "r(a" << i << ",b" << i << ").\ns(b" << i << ",a" << i << ").\n";
  return ntp::training_data_from_text(facts.str(), "2  #1(X, Y) :- #2(Y, X).\n");
}


}  // namespace

TEST_CASE("carve_dev holds a tenth of the facts out, the same ones for the same seed, every symbol kept") {
  const ntp::TrainingData data = sixty_facts();
  const ntp::TrainingData carved = ntp::carve_dev(data, 3);
  CHECK(carved.dev.size() == 6);
  CHECK(carved.kb.facts.size() == 54);
  for (const ntp::Atom& a : carved.dev) CHECK(!carved.kb.contains(a));
  for (const ntp::Atom& a : data.kb.facts)
    CHECK((carved.kb.contains(a) || std::count(carved.dev.begin(), carved.dev.end(), a) == 1));
  CHECK(carved.kb.constants.names() == data.kb.constants.names());
  CHECK(carved.kb.predicates.names() == data.kb.predicates.names());
  CHECK(carved.kb.templates.size() == data.kb.templates.size());
  CHECK(ntp::carve_dev(data, 3).dev == carved.dev);
  CHECK(ntp::carve_dev(data, 4).dev != carved.dev);
}

TEST_CASE("carve_dev mines the templates a run mined itself again from the facts it leaves") {
  ntp::TrainingData data = sixty_facts();
  data.kb.templates.clear();
  data = ntp::with_mined_templates(std::move(data));  // `--templates mined`, no dev facts: r :- s and s :- r at 1
  REQUIRE(data.rules_per_goal > 0);
  const ntp::TrainingData carved = ntp::carve_dev(data, 3);
  ntp::TrainingData left;
  left.kb = carved.kb;
  left.kb.templates.clear();
  const ntp::TrainingData expected = ntp::with_mined_templates(std::move(left));
  CHECK(carved.rules_per_goal == expected.rules_per_goal);
  REQUIRE(carved.kb.templates.size() == expected.kb.templates.size());
  bool below_one = false;  // a held-out fact no longer supports its inverse's rule
  for (std::size_t i = 0; i < carved.kb.templates.size(); ++i) {
    CHECK(carved.kb.templates[i].slot_starts == expected.kb.templates[i].slot_starts);
    CHECK(carved.kb.templates[i].mined_confidence == expected.kb.templates[i].mined_confidence);
    below_one = below_one || carved.kb.templates[i].mined_confidence < 1;
  }
  CHECK(below_one);
}

TEST_CASE("carves_dev: only asked, without dev facts or a dev metric, within its sizes, with something to choose") {
  const ntp::TrainingData data = sixty_facts();
  ntp::ModelOptions model;
  ntp::RunOptions run;
  run.dev_from_train = true;
  CHECK(ntp::carves_dev(data, model, run));  // the mined rules, at least
  run.mined_rules_on_dev = false;
  model.prover.complex = false;
  CHECK(!ntp::carves_dev(data, model, run));  // nothing left to choose
  run.l2_choices = {1e-4, 1e-3};
  CHECK(ntp::carves_dev(data, model, run));
  run.eval_every = 1;
  CHECK(!ntp::carves_dev(data, model, run));  // a dev metric needs given dev facts
  run.eval_every = 0;
  ntp::TrainingData with_dev = data;
  with_dev.dev.push_back(data.kb.facts[0]);
  CHECK(!ntp::carves_dev(with_dev, model, run));
  CHECK(!ntp::carves_dev(ntp::training_data_from_text("r(a, b).\nr(b, c).\n"), model, run));  // too few facts
  run.dev_from_train = false;
  CHECK(!ntp::carves_dev(data, model, run));
}

TEST_CASE("with no dev facts, the run chooses on held-out facts, then trains on all of them with the values chosen") {
  omp_set_num_threads(1);
  const ntp::TrainingData data = sixty_facts();
  const std::string dir = std::string(NTP_BINARY_DIR) + "/";
  ntp::ModelOptions model;
  model.dim = 6;
  model.seed = 2;
  ntp::TrainOptions options;
  options.epochs = 3;
  options.batch = 5;
  options.learning_rate = 0.05;
  options.seed = 9;
  ntp::RunOptions run;
  run.model_path = dir + "carved.ntp";
  run.l2_choices = {1e-4, 0.3};
  run.dev_from_train = true;
  const ntp::RunResult result = ntp::train(data, model, options, run, nullptr);
  REQUIRE(result.finished);
  MESSAGE(result.dev_carved);
  MESSAGE(result.l2_choice);
  MESSAGE(result.width_choice);
  MESSAGE(result.combine_choice);
  MESSAGE(result.mined_rules);
  CHECK(result.dev_carved.rfind("6 of 60 training facts (seed 9) made the choices", 0) == 0);
  CHECK(!result.l2_choice.empty());
  CHECK(!result.width_choice.empty());
  CHECK(!result.combine_choice.empty());
  CHECK(!result.mined_rules.empty());
  // Nothing of the choosing run is left behind.
  const std::string chooser = ntp::carved_choice_path(run.model_path);
  CHECK(!std::ifstream(chooser));
  CHECK(!std::ifstream(ntp::checkpoint_path(chooser)));
  for (double v : run.l2_choices) CHECK(!std::ifstream(ntp::l2_candidate_path(chooser, v)));

  // The same model as a run on every fact given the values chosen, plus the
  // proof search width chosen (training kept its own k) and the mined rules
  // (mined again from every fact) when the choice kept them.
  ntp::TrainOptions given = options;
  given.l2 = std::strtod(result.l2_choice.c_str(), nullptr);
  ntp::ModelOptions given_model = model;
  REQUIRE(ntp::combine_from_name(result.combine_choice.substr(0, result.combine_choice.find(' ')), &given_model.prover.combine));
  ntp::RunOptions plain;
  plain.model_path = dir + "carved_given.ntp";
  plain.combine_from = ntp::CombineFrom::Given;
  plain.mined_rules_on_dev = false;
  REQUIRE(ntp::train(data, given_model, given, plain, nullptr).finished);
  ntp::Model expected = ntp::load_model(plain.model_path);
  const ntp::Model got = ntp::load_model(run.model_path);
  CHECK(got.kb.facts.size() == 60);
  CHECK(std::to_string(got.prover.k_facts) == result.width_choice.substr(0, result.width_choice.find(' ')));
  CHECK(ntp::load_checkpoint(ntp::checkpoint_path(run.model_path)).model.prover.k_facts == 1);
  expected.prover.k_facts = got.prover.k_facts;
  if (result.mined_rules.rfind("kept", 0) == 0) {
    REQUIRE(!got.mined_rules.empty());
    expected.mined_rules = ntp::mine_rules_like(data.kb, got.mined_rules);
    expected.mined_rule_weight = got.mined_rule_weight;
  }
  CHECK(bytes_of(got) == bytes_of(expected));
  remove_run_files(run.model_path);
  remove_run_files(plain.model_path);
}
