// The proof search width chosen on dev (ntp/train/width_choice.h): each
// width's metric is the proofs alone ranking dev at that width, the best is
// kept (the narrower on a tie), training's own k is untouched, and models
// with nothing to choose keep theirs.
#include "ntp/ntp.h"
#include "ntp/train/checkpoint.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/new_model.h"
#include "ntp/train/rule_choice.h"
#include "ntp/train/width_choice.h"
#include "run_files.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

// r(a_i, b_i) for i = 1..40, s(b_i, a_i) for i = 1..15 as training facts and
// i = 16..40 as dev facts, with an inverse template: a proof of s(b, a)
// goes through r(a, b), whose nearest facts depend on the embeddings.
ntp::TrainingData data_with_dev() {
  std::ostringstream facts;
  for (int i = 1; i <= 40; ++i) facts << "r(a" << i << ",b" << i << ").\n" << (i <= 15 ? "s(b" : "% s(b") << i << ",a" << i << ").\n";
  ntp::TrainingData data = ntp::training_data_from_text(facts.str(), "2  #1(X, Y) :- #2(Y, X).\n");
  for (int i = 16; i <= 40; ++i)
    data.dev.push_back({data.kb.predicates.find("s"),
                        {data.kb.constants.find("b" + std::to_string(i)), data.kb.constants.find("a" + std::to_string(i))}});
  return data;
}

ntp::ModelOptions model_options() {
  ntp::ModelOptions mo;
  mo.dim = 4;  // few dimensions: the nearest fact by distance is often not the best by kernel min
  mo.seed = 5;
  mo.prover.complex = true;
  mo.prover.combine = ntp::Combine::Mean;
  return mo;
}

// The proofs alone's dev metric of `model` at `width` facts per or-step.
double proofs_at(ntp::Model model, const ntp::TrainingData& data, int width) {
  model.prover.k_facts = width;
  ntp::ScoreOptions proofs;
  proofs.source = ntp::ScoreSource::ProofOnly;
  return ntp::dev_metric(model, data, proofs);
}

}  // namespace

TEST_CASE("the width chosen on dev is the narrowest that the best ranks dev no clearly better than, with the proofs alone") {
  omp_set_num_threads(1);
  const ntp::TrainingData data = data_with_dev();
  for (int seed : {5, 6, 7}) {
    ntp::ModelOptions mo = model_options();
    mo.seed = seed;
    ntp::Model m = ntp::new_model(data, mo);
    REQUIRE(ntp::can_choose_width(m, data));
    std::ostringstream lines;
    const ntp::WidthChoice choice = ntp::choose_width(m, data, ntp::kCombineChoiceDevAtoms, &lines);
    MESSAGE(ntp::describe(choice, "mrr"));
    CHECK(choice.dev_atoms == 25);
    REQUIRE(choice.measured.size() == 4);
    REQUIRE(choice.reciprocal.size() == 4);
    for (std::size_t w = 0; w < choice.measured.size(); ++w) {
      const int width = choice.measured[w].first;
      const double metric = choice.measured[w].second;
      CHECK(width == (1 << w));  // 1, 2, 4, 8 times the trained k of 1
      CHECK(metric == doctest::Approx(proofs_at(m, data, width)).epsilon(1e-12));
      REQUIRE(choice.reciprocal[w].size() == 50);  // both sides of 25 facts
      double sum = 0;
      for (double r : choice.reciprocal[w]) sum += r;
      CHECK(sum / 50 == doctest::Approx(metric).epsilon(1e-12));
    }
    const int expected = choice.measured[ntp::first_within_noise_of_best(choice.reciprocal)].first;
    CHECK(choice.chosen == expected);
    CHECK(m.prover.k_facts == expected);
    CHECK(m.prover.combine == ntp::Combine::Mean);  // the proofs alone were measured, the rule is untouched
    CHECK(lines.str().find("k 8") != std::string::npos);
  }
}

TEST_CASE("a trained k of 2 tries 2, 4, 8 and 16") {
  const ntp::TrainingData data = data_with_dev();
  ntp::Model m = ntp::new_model(data, model_options());
  m.prover.k_facts = 2;
  const ntp::WidthChoice choice = ntp::choose_width(m, data);
  REQUIRE(choice.measured.size() == 4);
  CHECK(choice.measured.front().first == 2);
  CHECK(choice.measured.back().first == 16);
}

TEST_CASE("no width is chosen for exhaustive search, a model ranked by ComplEx alone, or without ranked dev facts") {
  ntp::TrainingData data = data_with_dev();
  ntp::Model m = ntp::new_model(data, model_options());
  m.prover.k_facts = 0;
  CHECK_FALSE(ntp::can_choose_width(m, data));
  CHECK(ntp::choose_width(m, data).measured.empty());
  CHECK(m.prover.k_facts == 0);
  m.prover.k_facts = 1;
  m.prover.combine = ntp::Combine::Complex;
  CHECK_FALSE(ntp::can_choose_width(m, data));
  m.prover.combine = ntp::Combine::Max;
  CHECK(ntp::can_choose_width(m, data));
  m.prover.complex = false;  // a plain model is scored by its proofs whatever its rule field says
  m.prover.combine = ntp::Combine::Complex;
  CHECK(ntp::can_choose_width(m, data));
  data.dev.clear();
  CHECK_FALSE(ntp::can_choose_width(m, data));
}

TEST_CASE("the width choice stops with its budget or a stop, keeping the trained k when nothing was measured") {
  const ntp::TrainingData data = data_with_dev();
  const ntp::Model trained = ntp::new_model(data, model_options());
  ntp::ChoiceLimits limits;
  limits.seconds = 1e-9;  // gone after the first round, which is always measured
  ntp::Model m = trained;
  const ntp::WidthChoice cut = ntp::choose_width(m, data, ntp::kCombineChoiceDevAtoms, nullptr, limits);
  CHECK(cut.over_budget);
  CHECK(cut.dev_atoms == 1);  // the first round: one atom
  CHECK(ntp::describe(cut, "mrr").find("on 1 atom: ") != std::string::npos);
  CHECK(ntp::describe(cut, "mrr").find("the time budget ran out: 1 atom measured") != std::string::npos);

  std::atomic<bool> stop{true};
  limits = ntp::ChoiceLimits{};
  limits.stop = &stop;
  m = trained;
  const ntp::WidthChoice stopped = ntp::choose_width(m, data, ntp::kCombineChoiceDevAtoms, nullptr, limits);
  CHECK(stopped.stopped);
  CHECK(stopped.measured.empty());
  CHECK(m.prover.k_facts == 1);
}

TEST_CASE("a stop raised while a round ranks one width ends the round before the next width, and keeps nothing of it") {
  const ntp::TrainingData data = data_with_dev();
  ntp::Model m = ntp::new_model(data, model_options());
  ntp::ScoreOptions proofs;
  proofs.source = ntp::ScoreSource::ProofOnly;
  std::atomic<bool> stop{false};
  ntp::ChoiceLimits limits;
  limits.stop = &stop;
  const int widths[] = {1, 2, 4, 8};
  std::vector<std::size_t> applied;
  int stop_in_round = 1;  // the stop is raised while this round ranks its first width
  int round = 0;
  const auto apply = [&](ntp::Model& model, std::size_t w) {
    if (w == 0) ++round;
    if (w == 0 && round == stop_in_round) stop.store(true);
    applied.push_back(w);
    model.prover.k_facts = widths[w];
  };
  const ntp::VariantsMeasured first = ntp::measure_variants(m, data, proofs, 25, limits, nullptr, "", 4, apply);
  CHECK(first.done.stopped);
  CHECK(first.done.atoms == 0);
  CHECK(first.mrr.empty());
  CHECK(applied == std::vector<std::size_t>{0});  // widths 2, 4 and 8 were never ranked

  stop.store(false);
  applied.clear();
  round = 0;
  stop_in_round = 2;  // the first round (one atom) is kept whole
  const ntp::VariantsMeasured second = ntp::measure_variants(m, data, proofs, 25, limits, nullptr, "", 4, apply);
  CHECK(second.done.stopped);
  CHECK(second.done.atoms == 1);
  REQUIRE(second.reciprocal.size() == 4);
  for (const std::vector<double>& sides : second.reciprocal) CHECK(sides.size() == 2);
  CHECK(applied == std::vector<std::size_t>{0, 1, 2, 3, 0});
}

TEST_CASE("a run with dev facts keeps the width in its model file, and trains and resumes at its own k") {
  omp_set_num_threads(1);
  const ntp::TrainingData data = data_with_dev();
  ntp::RunOptions run;
  run.model_path = std::string(NTP_BINARY_DIR) + "/width_choice.ntp";
  ntp::TrainOptions t;
  t.epochs = 2;
  t.batch = 5;
  t.seed = 3;
  run.keep = ntp::Keep::Best;  // the model file is the best epoch's, not rewritten from the checkpoint when resumed
  run.eval_every = 1;
  const ntp::RunResult result = ntp::train(data, model_options(), t, run, nullptr);
  REQUIRE(result.finished);
  MESSAGE(result.width_choice);
  ntp::Model kept = ntp::load_model(run.model_path);
  CHECK(result.width_choice.rfind(std::to_string(kept.prover.k_facts) + " (dev mrr of the proofs alone on 25 atoms: 1 ", 0) == 0);
  // The checkpoint, which a resumed run trains on, keeps training's k.
  CHECK(ntp::load_checkpoint(ntp::checkpoint_path(run.model_path)).model.prover.k_facts == 1);
  // A finished run resumed keeps the choice its checkpoint records as made
  // and its model file holds, without making it again.
  ntp::Checkpoint recorded = ntp::load_checkpoint(ntp::checkpoint_path(run.model_path));
  CHECK(recorded.choices.on_kept);
  CHECK(recorded.choices.width == result.width_choice);
  const int chosen = kept.prover.k_facts;
  run.resume = true;
  std::ostringstream said;
  const ntp::RunResult kept_run = ntp::train(data, model_options(), t, run, &said);
  CHECK(kept_run.width_choice == result.width_choice);
  CHECK(said.str().find("choosing the proof search width") == std::string::npos);
  CHECK(said.str().find("chosen on dev before: kept") != std::string::npos);
  CHECK(ntp::load_model(run.model_path).prover.k_facts == chosen);
  // A model file that is no longer the one recorded (here its width set to
  // 8 by another hand) makes the choice again, from training's k.
  kept.prover.k_facts = 8;
  ntp::save_model(kept, run.model_path);
  std::ostringstream again_said;
  const ntp::RunResult again = ntp::train(data, model_options(), t, run, &again_said);
  CHECK(again_said.str().find("choosing the proof search width") != std::string::npos);
  CHECK(again.width_choice == result.width_choice);
  CHECK(ntp::load_model(run.model_path).prover.k_facts == chosen);
  // Training on (one more epoch) clears the record and makes the choice
  // again, on the new model, recording it anew.
  ntp::TrainOptions three = t;
  three.epochs = 3;
  std::ostringstream more_said;
  CHECK(ntp::train(data, model_options(), three, run, &more_said).finished);
  CHECK(more_said.str().find("choosing the proof search width") != std::string::npos);
  const ntp::Checkpoint after = ntp::load_checkpoint(ntp::checkpoint_path(run.model_path));
  CHECK(after.state.epochs_done == 3);
  CHECK(after.choices.on_kept);
  CHECK(after.choices.model_file == ntp::file_fingerprint(run.model_path));
  std::remove(run.model_path.c_str());
  std::remove(ntp::checkpoint_path(run.model_path).c_str());
}

TEST_CASE("a stop asked while a choice ranks dev leaves the run unfinished, and --resume makes the choices in full") {
  omp_set_num_threads(1);
  const ntp::TrainingData data = data_with_dev();
  ntp::TrainOptions t;
  t.epochs = 2;
  t.batch = 5;
  t.seed = 3;
  ntp::RunOptions run;
  run.model_path = std::string(NTP_BINARY_DIR) + "/choice_straight.ntp";
  run.mined_rules_on_dev = true;
  const ntp::RunResult straight = ntp::train(data, model_options(), t, run, nullptr);
  REQUIRE(straight.finished);
  REQUIRE(!straight.width_choice.empty());
  REQUIRE(!straight.combine_choice.empty());
  REQUIRE(!straight.mined_rules.empty());
  const ntp::Model straight_model = ntp::load_model(run.model_path);
  const std::string straight_bytes = bytes_of(straight_model);
  REQUIRE(!straight_model.mined_rules.empty());

  for (const std::string choice : {"choosing the proof search width", "choosing the combine rule", "mining rules"}) {
    CAPTURE(choice);
    std::atomic<bool> stop{false};
    StopOnText buffer(choice, stop);
    std::ostream progress(&buffer);
    run.model_path = std::string(NTP_BINARY_DIR) + "/choice_stopped.ntp";
    run.stop = &stop;
    run.resume = false;
    const ntp::RunResult stopped = ntp::train(data, model_options(), t, run, &progress);
    CHECK(!stopped.finished);
    CHECK(stopped.epochs_done == 2);
    CHECK(buffer.str().find("stopped while choosing on dev: --resume makes this choice again") != std::string::npos);
    // The model file holds the choices finished before the stop, and not
    // the one stopped (raised as it starts, so before its first atom: the
    // rounds' own tests stop one after a round).
    const ntp::Model left = ntp::load_model(run.model_path);
    const bool before_mining = choice != "mining rules";
    CHECK(left.prover.k_facts == (before_mining ? 1 : straight_model.prover.k_facts));
    CHECK(left.prover.combine == (before_mining ? model_options().prover.combine : straight_model.prover.combine));
    CHECK(left.mined_rules.empty());

    run.stop = nullptr;
    run.resume = true;
    std::ostringstream said;
    const ntp::RunResult resumed = ntp::train(data, model_options(), t, run, &said);
    CHECK(resumed.finished);
    // The choices finished before the stop, recorded in the checkpoint, are
    // not made again.
    CHECK((said.str().find("choosing the proof search width") == std::string::npos) == !before_mining);
    CHECK(resumed.width_choice == straight.width_choice);
    CHECK(resumed.combine_choice == straight.combine_choice);
    CHECK(resumed.mined_rules == straight.mined_rules);
    CHECK(bytes_of(ntp::load_model(run.model_path)) == straight_bytes);
    remove_run_files(run.model_path);
  }
  remove_run_files(std::string(NTP_BINARY_DIR) + "/choice_straight.ntp");
}
