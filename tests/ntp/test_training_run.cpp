// Resumable training in the library: the epoch loop stopped by its hook and
// resumed from its state takes the same steps as an uninterrupted run, and so
// does a whole run (train()) stopped by its flag and resumed from its
// checkpoint; checkpoints round-trip and a damaged one is refused with its
// path; the option checks name the setting.
#include "run_files.h"
#include "ntp/ntp.h"
#include "ntp/train/checkpoint.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/epochs.h"
#include "ntp/train/new_model.h"
#include "ntp/train/settings.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace {

ntp::ModelOptions small_model_options() {
  ntp::ModelOptions mo;
  mo.dim = 6;
  mo.seed = 2;
  return mo;
}

ntp::TrainingData small_data() {
  std::ostringstream facts;
  for (int i = 1; i <= 12; ++i) facts << "r(a" << i << ",b" << i << ").\ns(b" << i << ",a" << i << ").\n";
  return ntp::training_data_from_text(facts.str(), "2  #1(X, Y) :- #2(Y, X).\n");
}

ntp::Model small_model() { return ntp::new_model(small_data(), small_model_options()); }

ntp::TrainOptions options(int epochs) {
  ntp::TrainOptions t;
  t.epochs = epochs;
  t.batch = 5;
  t.learning_rate = 0.05;
  t.seed = 9;
  return t;
}

}  // namespace

TEST_CASE("a stopped and resumed epoch loop gives the model of an uninterrupted one") {
  omp_set_num_threads(1);
  ntp::Model straight = small_model();
  ntp::train_epochs(straight, options(3));

  ntp::Model model = small_model();
  ntp::TrainingState state;
  bool stop = true;  // asked from the start: stop after the first step
  ntp::EpochHooks hooks;
  hooks.stop_requested = [&stop] { return stop; };
  CHECK(!ntp::train_epochs(model, options(3), state, hooks));
  CHECK(state.epochs_done == 0);
  CHECK(state.steps_done == 1);
  // Through a checkpoint file, as `ntp train --resume` does.
  const std::string path = std::string(NTP_BINARY_DIR) + "/run_test.ckpt";
  ntp::Checkpoint saved;
  saved.settings = "lr=0.05\n";
  saved.state = state;
  saved.state.seconds = 12.5;  // the time before the stop, which a resumed run's choices take a share of
  saved.model = model;
  ntp::save_checkpoint(saved, path);
  ntp::Checkpoint loaded = ntp::load_checkpoint(path);
  CHECK(loaded.settings == saved.settings);
  CHECK(loaded.state.steps_done == 1);
  CHECK(loaded.state.seconds == 12.5);
  CHECK(bytes_of(loaded.model) == bytes_of(model));
  CHECK(!loaded.choices.on_kept);
  CHECK(!loaded.choices.mined_rules);
  {  // Versions 1 (no seconds, no choices before the model) and 2 (no
     // choices) still load: time unknown (0), no choice made.
    std::ifstream in(path, std::ios::binary);
    const std::string v3(std::istreambuf_iterator<char>(in), {});
    const std::size_t model_bytes = bytes_of(model).size(), choices_bytes = 4 + 4 * 4 + 8;  // flags, four empty strings, a fingerprint
    for (const int version : {1, 2}) {
      const std::size_t cut = choices_bytes + (version == 1 ? 8 : 0);
      std::string old_bytes = v3.substr(0, v3.size() - model_bytes - cut) + v3.substr(v3.size() - model_bytes);
      old_bytes[8] = static_cast<char>(version);  // the version, after the 8-byte magic number (little-endian)
      const std::string old_path = path + ".old";
      std::ofstream(old_path, std::ios::binary) << old_bytes;
      const ntp::Checkpoint old = ntp::load_checkpoint(old_path);
      CHECK(old.state.seconds == (version == 1 ? 0 : 12.5));
      CHECK(old.state.steps_done == 1);
      CHECK(!old.choices.on_kept);
      CHECK(bytes_of(old.model) == bytes_of(model));
      std::remove(old_path.c_str());
    }
  }
  {  // The choices made round trip.
    ntp::Checkpoint made = saved;
    made.choices.on_kept = true;
    made.choices.width = "2 (dev mrr ...)";
    made.choices.mined_rules = true;
    made.choices.mined = "not kept: ...";
    made.choices.asked = "combine on dev yes, mined rules on dev yes";
    made.choices.model_file = 0x0123456789abcdefull;
    ntp::save_checkpoint(made, path + ".made");
    const ntp::Checkpoint back = ntp::load_checkpoint(path + ".made");
    CHECK(back.choices.on_kept);
    CHECK(back.choices.width == made.choices.width);
    CHECK(back.choices.combine.empty());
    CHECK(back.choices.mined_rules);
    CHECK(back.choices.mined == made.choices.mined);
    CHECK(back.choices.asked == made.choices.asked);
    CHECK(back.choices.model_file == made.choices.model_file);
    std::remove((path + ".made").c_str());
  }
  stop = false;
  int epochs_seen = 0;
  hooks.after_epoch = [&](ntp::EpochReport&) { ++epochs_seen; };
  CHECK(ntp::train_epochs(loaded.model, options(3), loaded.state, hooks));
  CHECK(epochs_seen == 3);
  CHECK(loaded.state.epochs_done == 3);
  CHECK(bytes_of(loaded.model) == bytes_of(straight));

  // A truncated checkpoint is refused, naming the file.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_WITH(ntp::load_checkpoint(path), doctest::Contains((path + ": truncated").c_str()));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "NTPMODEL and more";
  CHECK_THROWS_WITH(ntp::load_checkpoint(path), doctest::Contains("not an ntp checkpoint"));
  std::remove(path.c_str());
}

TEST_CASE("training settings name what a resumed run must share") {
  const ntp::TrainingData data = ntp::training_data_from_text("r(a,b).\n");
  ntp::ModelOptions m;
  ntp::TrainOptions t;
  ntp::RunOptions r;
  const std::string before = ntp::training_settings(data, m, t, r);
  t.epochs = 500;  // may grow on resumption
  CHECK(ntp::training_settings(data, m, t, r) == before);
  t.learning_rate = 0.5;
  CHECK(ntp::training_settings(data, m, t, r) != before);
  CHECK(ntp::training_settings(ntp::training_data_from_text("r(a,c).\n"), m, ntp::TrainOptions{}, r) != before);
}

TEST_CASE("resuming compares the settings both ways: one written only when on cannot be dropped or added") {
  const std::string base = "dim=4\nbatch=5\n";
  CHECK_NOTHROW(ntp::check_same_settings(base, base, "c.ckpt"));
  CHECK_THROWS_WITH_AS(ntp::check_same_settings(base, base + "predicate-negatives=2\n", "c.ckpt"),
                       doctest::Contains("predicate-negatives is (not set) now but 2 in the checkpoint"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ntp::check_same_settings(base + "explore=0.1\n", base, "c.ckpt"),
                       doctest::Contains("explore is 0.1 now but (not set) in the checkpoint"), std::invalid_argument);
}

TEST_CASE("a run stopped by its flag and resumed from its checkpoint writes the model of an uninterrupted run") {
  omp_set_num_threads(1);
  ntp::RunOptions run;
  run.model_path = std::string(NTP_BINARY_DIR) + "/run_straight.ntp";
  const ntp::RunResult straight = ntp::train(small_data(), small_model_options(), options(3), run, nullptr);
  CHECK(straight.finished);
  CHECK(straight.epochs_done == 3);
  const std::string straight_bytes = bytes_of(ntp::load_model(run.model_path));

  const std::atomic<bool> stop{true};  // raised from the start: stop after the first step
  run.model_path = std::string(NTP_BINARY_DIR) + "/run_stopped.ntp";
  run.stop = &stop;
  const ntp::RunResult stopped = ntp::train(small_data(), small_model_options(), options(3), run, nullptr);
  CHECK(!stopped.finished);
  CHECK(stopped.epochs_done == 0);
  CHECK(stopped.steps_done == 1);
  CHECK(stopped.checkpoint == ntp::checkpoint_path(run.model_path));
  CHECK(!std::ifstream(run.model_path));  // no model yet: only the checkpoint
  CHECK(ntp::load_checkpoint(stopped.checkpoint).state.seconds == stopped.training_seconds);
  {  // As if the stopped process had trained for a million seconds: the resumed run must count them.
    ntp::Checkpoint c = ntp::load_checkpoint(stopped.checkpoint);
    c.state.seconds = 1e6;
    ntp::save_checkpoint(c, stopped.checkpoint);
  }
  run.stop = nullptr;
  run.resume = true;
  const ntp::RunResult resumed = ntp::train(small_data(), small_model_options(), options(3), run, nullptr);
  CHECK(resumed.finished);
  CHECK(resumed.epochs_done == 3);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == straight_bytes);
  // The training's time counts the stopped process's too, as the checkpoint kept it.
  CHECK(resumed.training_seconds >= 1e6);
  CHECK(resumed.training_seconds < 1e6 + 600);
  const double at_last_epoch = ntp::load_checkpoint(stopped.checkpoint).state.seconds;  // saved after the last epoch
  CHECK(at_last_epoch >= 1e6);
  CHECK(at_last_epoch <= resumed.training_seconds);

  // Resuming with another setting is refused, naming it.
  ntp::TrainOptions other = options(3);
  other.batch = 4;
  CHECK_THROWS_WITH_AS(ntp::train(small_data(), small_model_options(), other, run, nullptr),
                       doctest::Contains("batch is 4 now but 5 in the checkpoint"), std::invalid_argument);
  for (const std::string& path : {std::string(NTP_BINARY_DIR) + "/run_straight.ntp", run.model_path})
    for (const std::string& file : {path, ntp::checkpoint_path(path)}) std::remove(file.c_str());
}

TEST_CASE("the option checks name the setting, in the library's words") {
  ntp::TrainOptions t;
  t.negatives = -1;
  CHECK_THROWS_WITH_AS(ntp::check_options(t), "the negatives per positive must be >= 0, got -1", std::invalid_argument);
  t = ntp::TrainOptions{};
  t.explore = -0.5;
  CHECK_THROWS_WITH_AS(ntp::check_options(t), doctest::Contains("exploration temperature must be >= 0"),
                       std::invalid_argument);
  ntp::ModelOptions m;
  m.dim = 7;  // the recipe's prover is NTPλ, whose ComplEx part pairs the dimensions
  CHECK_THROWS_WITH_AS(ntp::check_options(m), doctest::Contains("must be even for ComplEx"), std::invalid_argument);
  m.prover.complex = false;
  ntp::check_options(m);
  m.prover.index = "faiss";
  CHECK_THROWS_WITH_AS(ntp::check_options(m), doctest::Contains("unknown fact index 'faiss'"), std::invalid_argument);
  ntp::RunOptions r;
  CHECK_THROWS_WITH_AS(ntp::check_options(r), doctest::Contains("no model path"), std::invalid_argument);
  r.model_path = "m.ntp";
  r.eval_every = -2;
  CHECK_THROWS_WITH_AS(ntp::check_options(r), "the epochs between dev metrics must be >= 0 (0 = never), got -2",
                       std::invalid_argument);
}

TEST_CASE("--combine dev: the run keeps the rule that ranks its dev facts best, and says what each one scored") {
  omp_set_num_threads(1);
  // Dev facts: s(b_i, a_i) for i = 10..12, which training does not see.
  std::ostringstream facts;
  for (int i = 1; i <= 12; ++i) facts << "r(a" << i << ",b" << i << ").\n" << (i < 10 ? "s(b" : "% s(b") << i << ",a" << i << ").\n";
  ntp::TrainingData data = ntp::training_data_from_text(facts.str(), "2  #1(X, Y) :- #2(Y, X).\n");
  const auto& symbols = data.kb.constants;
  for (int i = 10; i <= 12; ++i)
    data.dev.push_back({data.kb.predicates.find("s"),
                        {symbols.find("b" + std::to_string(i)), symbols.find("a" + std::to_string(i))}});
  REQUIRE(data.dev.size() == 3);

  ntp::ModelOptions mo = small_model_options();
  mo.prover.complex = true;
  ntp::RunOptions run;
  run.model_path = std::string(NTP_BINARY_DIR) + "/combine_dev.ntp";
  run.combine_from = ntp::CombineFrom::Dev;
  const ntp::RunResult result = ntp::train(data, mo, options(4), run, nullptr);
  REQUIRE(result.finished);
  const ntp::Model chosen = ntp::load_model(run.model_path);
  MESSAGE(result.combine_choice);
  CHECK(result.combine_choice.rfind(ntp::combine_name(chosen.prover.combine), 0) == 0);
  CHECK(result.combine_choice.find("on 3 atoms") != std::string::npos);

  // The same three measurements by hand: the chosen rule's is the largest,
  // and an exact tie keeps the earlier rule (mean, max, proof).
  double best = -1;
  ntp::Combine argmax = ntp::Combine::Mean;
  for (ntp::Combine rule : {ntp::Combine::Mean, ntp::Combine::Max, ntp::Combine::Proof}) {
    ntp::Model m = chosen;
    m.prover.combine = rule;
    const double metric = ntp::dev_metric(m, data);
    char text[48];
    std::snprintf(text, sizeof text, "%s %.4f", ntp::combine_name(rule), metric);
    CHECK(result.combine_choice.find(text) != std::string::npos);
    if (metric > best) {
      best = metric;
      argmax = rule;
    }
  }
  CHECK(chosen.prover.combine == argmax);

  // A plain model has no rule to choose; a run without dev nothing to choose on.
  mo.prover.complex = false;
  CHECK_THROWS_WITH_AS(ntp::train(data, mo, options(1), run, nullptr), doctest::Contains("NTPλ"),
                       std::invalid_argument);
  mo.prover.complex = true;
  const std::vector<ntp::Atom> dev = data.dev;
  data.dev.clear();
  CHECK_THROWS_WITH_AS(ntp::train(data, mo, options(1), run, nullptr), doctest::Contains("dev atoms"),
                       std::invalid_argument);

  // CombineFrom::Auto (the default) chooses only when it can: a run without
  // dev atoms, or of a plain model, keeps the rule it was given.
  ntp::RunOptions automatic;
  automatic.model_path = run.model_path;
  CHECK(automatic.combine_from == ntp::CombineFrom::Auto);
  mo.prover.combine = ntp::Combine::Max;
  CHECK(ntp::train(data, mo, options(1), automatic, nullptr).combine_choice.empty());
  CHECK(ntp::load_model(run.model_path).prover.combine == ntp::Combine::Max);
  mo.prover.complex = false;
  data.dev = dev;
  CHECK(ntp::train(data, mo, options(1), automatic, nullptr).combine_choice.empty());
  mo.prover.complex = true;
  mo.prover.combine = ntp::Combine::Mean;
  const ntp::RunResult chosen_again = ntp::train(data, mo, options(4), automatic, nullptr);
  CHECK(chosen_again.combine_choice == result.combine_choice);  // the same run as the Dev one above
  std::remove(run.model_path.c_str());
  std::remove(ntp::checkpoint_path(run.model_path).c_str());
}

namespace {

// small_data() with s(b_i, a_i), i = 10..12, held out as dev atoms.
ntp::TrainingData small_data_with_dev() {
  std::ostringstream facts;
  for (int i = 1; i <= 12; ++i) facts << "r(a" << i << ",b" << i << ").\n" << (i < 10 ? "s(b" : "% s(b") << i << ",a" << i << ").\n";
  ntp::TrainingData data = ntp::training_data_from_text(facts.str(), "2  #1(X, Y) :- #2(Y, X).\n");
  for (int i = 10; i <= 12; ++i)
    data.dev.push_back({data.kb.predicates.find("s"), {data.kb.constants.find("b" + std::to_string(i)),
                                                       data.kb.constants.find("a" + std::to_string(i))}});
  return data;
}


}  // namespace

TEST_CASE("several L2 values: one run each, the best on dev kept byte for byte, the others' files removed") {
  omp_set_num_threads(1);
  const ntp::TrainingData data = small_data_with_dev();
  const std::vector<double> values{1e-4, 0.05, 0.3};
  const std::string dir = std::string(NTP_BINARY_DIR) + "/";

  // Each value trained alone, and its dev metric as the choice measures it.
  std::vector<std::string> alone;
  std::vector<double> dev;
  for (double v : values) {
    ntp::TrainOptions t = options(4);
    t.l2 = v;
    ntp::RunOptions run;
    run.model_path = dir + "l2_alone.ntp";
    REQUIRE(ntp::train(data, small_model_options(), t, run, nullptr).finished);
    const ntp::Model m = ntp::load_model(run.model_path);
    alone.push_back(bytes_of(m));
    dev.push_back(ntp::dev_metric(m, data, {}, 500));
    remove_run_files(run.model_path);
  }
  const std::size_t best = static_cast<std::size_t>(std::max_element(dev.begin(), dev.end()) - dev.begin());
  CHECK(alone[0] != alone[1]);  // the values make different models

  ntp::RunOptions run;
  run.model_path = dir + "l2_choice.ntp";
  run.log_path = dir + "l2_choice.jsonl";
  for (double v : values) std::remove(ntp::l2_candidate_path(run.log_path, v).c_str());
  run.l2_choices = values;
  const ntp::RunResult chosen = ntp::train(data, small_model_options(), options(4), run, nullptr);
  REQUIRE(chosen.finished);
  // The kept run's log is the one asked for; the other keeps its suffix.
  CHECK(std::ifstream(run.log_path).good());
  for (std::size_t i = 0; i < values.size(); ++i)
    CHECK(std::ifstream(ntp::l2_candidate_path(run.log_path, values[i])).good() == (i != best));
  MESSAGE(chosen.l2_choice);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == alone[best]);
  CHECK(chosen.l2_choice.rfind(ntp::format_number(values[best]) + " (dev mrr on 3 atoms:", 0) == 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    char text[48];
    std::snprintf(text, sizeof text, "%s %.4f", ntp::format_number(values[i]).c_str(), dev[i]);
    CHECK(chosen.l2_choice.find(text) != std::string::npos);
    CHECK(!std::ifstream(ntp::l2_candidate_path(run.model_path, values[i])));
    CHECK(!std::ifstream(ntp::checkpoint_path(ntp::l2_candidate_path(run.model_path, values[i]))));
  }
  CHECK(std::ifstream(ntp::checkpoint_path(run.model_path)).good());
  // Resuming a finished choice continues the run it chose: 4 + 2 epochs are
  // that value's 6 epochs alone.
  ntp::TrainOptions six = options(6);
  six.l2 = values[best];
  ntp::RunOptions alone_run;
  alone_run.model_path = dir + "l2_alone.ntp";
  ntp::train(data, small_model_options(), six, alone_run, nullptr);
  run.resume = true;
  const ntp::RunResult more = ntp::train(data, small_model_options(), options(6), run, nullptr);
  CHECK(more.epochs_done == 6);
  CHECK(more.l2_choice.empty());
  CHECK(bytes_of(ntp::load_model(run.model_path)) == bytes_of(ntp::load_model(alone_run.model_path)));
  remove_run_files(alone_run.model_path);
  remove_run_files(run.model_path);

  // Stopped inside the first candidate and resumed: the same choice and model.
  const std::atomic<bool> stop{true};
  run.resume = false;
  run.stop = &stop;
  CHECK(!ntp::train(data, small_model_options(), options(4), run, nullptr).finished);
  CHECK(std::ifstream(ntp::checkpoint_path(ntp::l2_candidate_path(run.model_path, values[0]))).good());
  run.stop = nullptr;
  run.resume = true;
  const ntp::RunResult resumed = ntp::train(data, small_model_options(), options(4), run, nullptr);
  CHECK(resumed.l2_choice == chosen.l2_choice);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == alone[best]);
  remove_run_files(run.model_path);

  // Stopped while the trained candidates are ranked on dev: unfinished, no
  // value kept, and resumed to the same choice and model.
  std::atomic<bool> stop_ranking{false};
  StopOnText buffer("choosing L2", stop_ranking);
  std::ostream progress(&buffer);
  run.resume = false;
  run.stop = &stop_ranking;
  CHECK(!ntp::train(data, small_model_options(), options(4), run, &progress).finished);
  CHECK(buffer.str().find("stopped while choosing on dev: --resume makes this choice again") != std::string::npos);
  CHECK(!std::ifstream(run.model_path));
  for (double v : values) CHECK(std::ifstream(ntp::l2_candidate_path(run.model_path, v)).good());
  run.stop = nullptr;
  run.resume = true;
  std::ostringstream said;
  const ntp::RunResult resumed_choice = ntp::train(data, small_model_options(), options(4), run, &said);
  CHECK(resumed_choice.l2_choice == chosen.l2_choice);
  // Each value's own choices, made before the stop, are kept.
  CHECK(said.str().find("chosen on dev before: kept") != std::string::npos);
  CHECK(said.str().find("choosing the proof search width") == std::string::npos);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == alone[best]);
  remove_run_files(run.model_path);

  // Without dev atoms there is nothing to choose on: the first value alone.
  ntp::TrainingData no_dev = data;
  no_dev.dev.clear();
  ntp::TrainOptions first = options(4);
  first.l2 = values[0];
  run.resume = false;
  const ntp::RunResult plain = ntp::train(no_dev, small_model_options(), options(4), run, nullptr);
  CHECK(plain.l2_choice.empty());
  const std::string without_dev = bytes_of(ntp::load_model(run.model_path));
  run.l2_choices.clear();
  ntp::train(no_dev, small_model_options(), first, run, nullptr);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == without_dev);
  remove_run_files(run.model_path);
}

TEST_CASE("the combine choice ranks its dev facts in rounds: all of them, or those done when the budget or a stop ends it") {
  omp_set_num_threads(1);
  // 50 dev facts s(b_i, a_i) that training does not see: three rounds of 20, 20 and 10.
  std::ostringstream facts;
  for (int i = 1; i <= 80; ++i) facts << "r(a" << i << ",b" << i << ").\n" << (i <= 30 ? "s(b" : "% s(b") << i << ",a" << i << ").\n";
  ntp::TrainingData data = ntp::training_data_from_text(facts.str(), "2  #1(X, Y) :- #2(Y, X).\n");
  for (int i = 31; i <= 80; ++i)
    data.dev.push_back({data.kb.predicates.find("s"),
                        {data.kb.constants.find("b" + std::to_string(i)), data.kb.constants.find("a" + std::to_string(i))}});
  ntp::ModelOptions mo = small_model_options();
  mo.prover.complex = true;
  const ntp::Model trained = ntp::new_model(data, mo);

  ntp::Model m = trained;
  std::ostringstream lines;
  const ntp::CombineChoice all = ntp::choose_combine(m, data, ntp::kCombineChoiceDevAtoms, &lines);
  CHECK(all.dev_atoms == 50);
  CHECK_FALSE(all.over_budget);
  CHECK(lines.str().find("ranked 50/50 dev atoms") != std::string::npos);
  // Rounds add up to the metric of ranking all of them at once.
  for (const auto& measured : all.measured) {
    ntp::Model one = trained;
    one.prover.combine = measured.first;
    const double metric = measured.second;  // not a structured binding: clang will not let CHECK capture one
    CHECK(metric == doctest::Approx(ntp::dev_metric(one, data)).epsilon(1e-12));
  }

  ntp::ChoiceLimits limits;
  limits.seconds = 1e-9;  // gone after the first round, which is always measured
  m = trained;
  const ntp::CombineChoice cut = ntp::choose_combine(m, data, ntp::kCombineChoiceDevAtoms, nullptr, limits);
  CHECK(cut.over_budget);
  CHECK(cut.dev_atoms == 1);  // the first round: one atom
  CHECK(ntp::describe(cut, "mrr").find("on 1 atom: ") != std::string::npos);
  CHECK(ntp::describe(cut, "mrr").find("the time budget ran out: 1 atom measured") != std::string::npos);

  std::atomic<bool> stop{true};
  limits = ntp::ChoiceLimits{};
  limits.stop = &stop;
  m = trained;
  m.prover.combine = ntp::Combine::Max;
  const ntp::CombineChoice stopped = ntp::choose_combine(m, data, ntp::kCombineChoiceDevAtoms, nullptr, limits);
  CHECK(stopped.stopped);
  CHECK(stopped.measured.empty());
  CHECK(m.prover.combine == ntp::Combine::Max);  // nothing measured: the model's own rule stays
}

namespace {

// A ranking of the test's own, given up or not, for CutAsked::ended.
ntp::RankingResult ranking_that(bool given_up) {
  ntp::RankingResult r;
  r.given_up = given_up;
  return r;
}

// p(i, i) for i = 0..n-1: atoms whose first argument says their place.
std::vector<ntp::Atom> numbered_atoms(int n) {
  std::vector<ntp::Atom> atoms;
  for (int i = 0; i < n; ++i) atoms.push_back({0, {i, i}});
  return atoms;
}

}  // namespace

TEST_CASE("a choice's rounds start at one atom and double while they are quick, every atom ranked once in order") {
  const std::vector<ntp::Atom> atoms = numbered_atoms(70);
  std::vector<std::size_t> sizes;
  std::vector<int> seen;
  const ntp::RoundsDone done = ntp::rank_in_rounds(atoms, {}, nullptr, "", [&](const std::vector<ntp::Atom>& round, const ntp::CutAsked&) {
    sizes.push_back(round.size());
    for (const ntp::Atom& a : round) seen.push_back(a.args[0]);
    return true;
  });
  CHECK(done.atoms == 70);
  CHECK_FALSE(done.over_budget);
  CHECK_FALSE(done.stopped);
  // Rounds that take no time: 1, 2, 4, 8, 16, then kCombineChoiceRound each, and the rest.
  CHECK(sizes == std::vector<std::size_t>{1, 2, 4, 8, 16, 20, 19});
  for (int i = 0; i < 70; ++i) CHECK(seen[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("a choice's rounds go on while the budget lasts, and the first is always ranked") {
  const std::vector<ntp::Atom> atoms = numbered_atoms(70);
  ntp::ChoiceLimits limits;
  limits.seconds = 1e9;  // far off: every round is ranked
  std::size_t ranked = 0;
  CHECK(ntp::rank_in_rounds(atoms, limits, nullptr, "", [&](const std::vector<ntp::Atom>& r, const ntp::CutAsked&) { ranked += r.size(); return true; }).atoms == 70);
  CHECK(ranked == 70);
  limits.seconds = 1e-9;  // gone at once: the first round only
  ranked = 0;
  const ntp::RoundsDone cut = ntp::rank_in_rounds(atoms, limits, nullptr, "", [&](const std::vector<ntp::Atom>& r, const ntp::CutAsked&) { ranked += r.size(); return true; });
  CHECK(cut.over_budget);
  CHECK(cut.atoms == 1);
  CHECK(ranked == 1);
}

TEST_CASE("a choice's rounds stop at the round after a stop is raised, or within a round that ends itself for it, and do not start one that would overrun") {
  const std::vector<ntp::Atom> atoms = numbered_atoms(70);
  std::atomic<bool> stop{false};
  ntp::ChoiceLimits limits;
  limits.stop = &stop;
  const ntp::RoundsDone stopped = ntp::rank_in_rounds(atoms, limits, nullptr, "", [&](const std::vector<ntp::Atom>&, const ntp::CutAsked&) {
    stop.store(true);  // raised during the first round, which goes on to its end
    return true;
  });
  CHECK(stopped.stopped);
  CHECK(stopped.atoms == 1);

  // A round whose ranking gives up for the stop is not counted: the
  // second round here.
  stop.store(false);
  int rounds = 0;
  const ntp::RoundsDone cut = ntp::rank_in_rounds(atoms, limits, nullptr, "", [&](const std::vector<ntp::Atom>&, const ntp::CutAsked& asked) {
    if (++rounds < 2) return true;
    stop.store(true);
    return !asked.ended(ranking_that(asked.ranking().give_up()));
  });
  CHECK(cut.stopped);
  CHECK(cut.atoms == 1);
  CHECK(rounds == 2);

  // An atom takes at least 50 ms: after the first, a round of two would end
  // past 0.12 s at that pace, so it is not started (a check of the time
  // passed alone would start it, and end with 3 atoms).
  limits = ntp::ChoiceLimits{};
  limits.seconds = 0.12;
  const ntp::RoundsDone paced = ntp::rank_in_rounds(atoms, limits, nullptr, "", [](const std::vector<ntp::Atom>& r, const ntp::CutAsked&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50 * r.size()));
    return true;
  });
  CHECK(paced.over_budget);
  CHECK(paced.atoms == 1);
}

TEST_CASE("a ranking that outlasts the budget gives up within itself, and its round ends uncounted; the first round never does") {
  const std::vector<ntp::Atom> atoms = numbered_atoms(70);
  ntp::ChoiceLimits limits;
  limits.seconds = 0.3;
  // The first round is quick (well under a third of the budget), so the
  // second, of two atoms, is started; its first ranking would take 60 steps
  // of 10 ms, asking give_up before each, and the round two rankings: it
  // gives up once the budget is gone (after about 30 steps on an idle
  // machine; under load, fewer).
  int rounds = 0, steps = 0, second_rankings = 0;
  const ntp::RoundsDone cut = ntp::rank_in_rounds(atoms, limits, nullptr, "", [&](const std::vector<ntp::Atom>&, const ntp::CutAsked& asked) {
    if (++rounds == 1) return !asked.ended(ranking_that(asked.ranking().give_up()));
    bool given_up = false;
    for (; steps < 60 && !given_up; ++steps) {
      given_up = asked.ranking().give_up();
      if (!given_up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (asked.ended(ranking_that(given_up))) return false;
    ++second_rankings;
    return true;
  });
  CHECK(cut.over_budget);
  CHECK_FALSE(cut.stopped);
  CHECK(cut.atoms == 1);
  CHECK(rounds == 2);
  CHECK(steps < 60);
  CHECK(second_rankings == 0);

  // A budget gone at once: the first round's rankings do not give up.
  limits.seconds = 1e-9;
  bool first_given_up = true;
  const ntp::RoundsDone first = ntp::rank_in_rounds(atoms, limits, nullptr, "", [&](const std::vector<ntp::Atom>&, const ntp::CutAsked& asked) {
    first_given_up = asked.ranking().give_up();
    return !asked.ended(ranking_that(first_given_up));
  });
  CHECK_FALSE(first_given_up);
  CHECK(first.atoms == 1);
  CHECK(first.over_budget);
}
