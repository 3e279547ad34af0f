// A prover that starts from mined rules (ntp/train/mined_templates.h):
// `--templates mined` mines the training facts, keeps a few rules a head as
// templates, and a goal tries as many of the nearest as one head has.
#include <doctest/doctest.h>

#include "kb_from_text.h"
#include "run_files.h"
#include "ntp/eval/evaluate.h"
#include "ntp/eval/ranking.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/model/model.h"
#include "ntp/train/checkpoint.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/mined_templates.h"
#include "ntp/train/new_model.h"
#include "ntp/train/train.h"
#include "ntp/train/training_data.h"

#include <omp.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
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

TEST_CASE("a choice of templates: the file's and mined ones each trained as alone, the better on dev kept byte for byte") {
  omp_set_num_threads(1);
  const ntp::TrainingData data =
      ntp::read_training_data(kFamily + "/train.nl", kFamily + "/family.nlt", kFamily + "/dev.nl", kFamily + "/test.nl");
  REQUIRE(ntp::can_choose_templates(data));
  const ntp::TrainingData mined = ntp::with_mined_templates(data);
  CHECK(!ntp::can_choose_templates(mined));  // mined already
  ntp::TrainingData no_dev = data;
  no_dev.dev.clear();
  CHECK(!ntp::can_choose_templates(no_dev));
  ntp::ModelOptions model;
  model.dim = 6;
  model.seed = 2;
  ntp::TrainOptions options;
  options.epochs = 2;
  options.seed = 9;
  const std::string dir = std::string(NTP_BINARY_DIR) + "/";

  // Each candidate trained alone, and its dev figures as `ntp eval` ranks:
  // the model (no mined rules kept beside it here) and its proofs alone.
  std::vector<std::string> alone;
  std::vector<double> dev, proofs;
  std::vector<std::vector<double>> reciprocal;
  std::vector<ntp::Model> models;
  ntp::RunOptions run;
  run.mined_rules_on_dev = false;
  run.model_path = dir + "templates_alone.ntp";
  for (const ntp::TrainingData* d : {&data, &mined}) {
    REQUIRE(ntp::train(*d, model, options, run, nullptr).finished);
    models.push_back(ntp::load_model(run.model_path));
    const ntp::Model& m = models.back();
    alone.push_back(bytes_of(m));
    ntp::ScoreOptions scoring;
    scoring.facts = ntp::make_fact_index(m, "exact");
    const ntp::RankingResult ranked = ntp::evaluate_ranking(m, d->dev, ntp::filter_set(m, d->dev), scoring);
    dev.push_back(ranked.mean_ties.mrr);
    reciprocal.push_back(ntp::reciprocal_ranks(ranked));
    scoring.source = ntp::ScoreSource::ProofOnly;
    proofs.push_back(ntp::dev_metric(m, *d, scoring, 500));
    remove_run_files(run.model_path);
  }
  // Both measured as the choice measures them, in rounds: the same figures
  // as each ranked whole.
  const ntp::CandidatesOnDev both = ntp::measure_candidates_on_dev({&models[0], &models[1]}, {&data, &mined}, true);
  CHECK(both.done.atoms == data.dev.size());
  CHECK(!both.done.over_budget);
  CHECK(!both.done.stopped);
  const std::vector<ntp::CandidateOnDev>& measured = both.candidates;
  REQUIRE(measured.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(measured[i].final_mrr == dev[i]);
    CHECK(measured[i].reciprocal == reciprocal[i]);
    CHECK(measured[i].proofs_mrr == proofs[i]);
  }
  bool by_proofs = false;
  const std::size_t best = ntp::template_candidate_kept(measured, &by_proofs);
  const std::string names[] = {"file", "mined"};

  run.mined_templates_on_dev = true;
  run.model_path = dir + "templates_choice.ntp";
  const ntp::RunResult chosen = ntp::train(data, model, options, run, nullptr);
  REQUIRE(chosen.finished);
  MESSAGE(chosen.templates_choice);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == alone[best]);
  CHECK(chosen.templates_choice.rfind(names[best] + " (dev mrr on 33 atoms:", 0) == 0);
  CHECK(chosen.templates_choice.find(by_proofs ? "within noise: the better proofs kept" : "clearly better kept") !=
        std::string::npos);
  for (std::size_t i = 0; i < 2; ++i) {
    char text[32];
    std::snprintf(text, sizeof text, "%s %.4f", names[i].c_str(), dev[i]);
    CHECK(chosen.templates_choice.find(text) != std::string::npos);
    std::snprintf(text, sizeof text, "%s %.4f", names[i].c_str(), proofs[i]);
    CHECK(chosen.templates_choice.find(text, chosen.templates_choice.find("proofs alone")) != std::string::npos);
    CHECK(!std::ifstream(ntp::template_candidate_path(run.model_path, names[i])));
    CHECK(!std::ifstream(ntp::checkpoint_path(ntp::template_candidate_path(run.model_path, names[i]))));
  }

  // Resuming a finished choice continues the run it chose: 2 + 1 epochs are its 3 alone.
  ntp::TrainOptions three = options;
  three.epochs = 3;
  ntp::RunOptions alone_run;
  alone_run.mined_rules_on_dev = false;
  alone_run.model_path = dir + "templates_alone.ntp";
  REQUIRE(ntp::train(best ? mined : data, model, three, alone_run, nullptr).finished);
  run.resume = true;
  const ntp::RunResult more = ntp::train(data, model, three, run, nullptr);
  CHECK(more.epochs_done == 3);
  CHECK(more.templates_choice.empty());
  CHECK(bytes_of(ntp::load_model(run.model_path)) == bytes_of(ntp::load_model(alone_run.model_path)));
  remove_run_files(alone_run.model_path);
  remove_run_files(run.model_path);

  // Stopped inside the first candidate and resumed: the same choice and model.
  const std::atomic<bool> stop{true};
  run.resume = false;
  run.stop = &stop;
  CHECK(!ntp::train(data, model, options, run, nullptr).finished);
  CHECK(std::ifstream(ntp::checkpoint_path(ntp::template_candidate_path(run.model_path, "file"))).good());
  run.stop = nullptr;
  run.resume = true;
  const ntp::RunResult resumed = ntp::train(data, model, options, run, nullptr);
  CHECK(resumed.templates_choice == chosen.templates_choice);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == alone[best]);
  remove_run_files(run.model_path);

  // Stopped while both trained candidates are ranked on dev: unfinished,
  // neither kept as the model, and resumed to the same choice and model.
  std::atomic<bool> stop_ranking{false};
  StopOnText buffer("choosing the templates", stop_ranking);
  std::ostream progress(&buffer);
  run.resume = false;
  run.stop = &stop_ranking;
  const ntp::RunResult stopped = ntp::train(data, model, options, run, &progress);
  CHECK(!stopped.finished);
  CHECK(buffer.str().find("stopped while choosing on dev: --resume makes this choice again") != std::string::npos);
  CHECK(!std::ifstream(run.model_path));
  for (const std::string& name : names)
    CHECK(std::ifstream(ntp::template_candidate_path(run.model_path, name)).good());
  run.stop = nullptr;
  run.resume = true;
  std::ostringstream said;
  const ntp::RunResult resumed_choice = ntp::train(data, model, options, run, &said);
  CHECK(resumed_choice.finished);
  // Each candidate's own choices, made before the stop, are kept.
  CHECK(said.str().find("chosen on dev before: kept") != std::string::npos);
  CHECK(said.str().find("choosing the proof search width") == std::string::npos);
  CHECK(resumed_choice.templates_choice == chosen.templates_choice);
  CHECK(bytes_of(ntp::load_model(run.model_path)) == alone[best]);
  remove_run_files(run.model_path);
}

TEST_CASE("the template candidate kept: a final model clearly better on dev, else the better proofs") {
  // Paired reciprocal ranks of 40 dev sides: a level, or a level plus noise.
  auto sides = [](double level, double noise) {
    std::vector<double> r;
    for (int i = 0; i < 40; ++i) r.push_back(level + (i % 2 ? noise : -noise));
    return r;
  };
  auto candidate = [](std::vector<double> reciprocal, double proofs) {
    ntp::CandidateOnDev c;
    c.reciprocal = std::move(reciprocal);
    c.proofs_mrr = proofs;
    return c;
  };
  bool by_proofs = true;
  // A clearly better final model wins whatever the proofs say, either way round.
  CHECK(ntp::template_candidate_kept({candidate(sides(0.5, 0.1), 0.9), candidate(sides(0.9, 0.05), 0.2)}, &by_proofs) == 1);
  CHECK(!by_proofs);
  CHECK(ntp::template_candidate_kept({candidate(sides(0.9, 0.05), 0.2), candidate(sides(0.5, 0.1), 0.9)}, &by_proofs) == 0);
  CHECK(!by_proofs);
  // Within noise (one side apart of 40), the better proofs; the file's on a tie.
  std::vector<double> one_better = sides(0.7, 0.2);
  one_better[3] = 1.0;
  CHECK(ntp::template_candidate_kept({candidate(one_better, 0.6), candidate(sides(0.7, 0.2), 0.8)}, &by_proofs) == 1);
  CHECK(by_proofs);
  CHECK(ntp::template_candidate_kept({candidate(sides(0.7, 0.2), 0.8), candidate(one_better, 0.6)}) == 0);
  CHECK(ntp::template_candidate_kept({candidate(sides(1, 0), 0.8), candidate(sides(1, 0), 0.8)}) == 0);
  // One side is no evidence either way: the proofs decide.
  CHECK(ntp::template_candidate_kept({candidate({1.0}, 0.5), candidate({0.1}, 0.6)}) == 1);
  CHECK_THROWS_AS(ntp::template_candidate_kept({candidate({1.0}, 0.5)}), std::invalid_argument);
}

TEST_CASE("a choice of templates with nothing mined trains the file's templates alone") {
  omp_set_num_threads(1);
  // Four unrelated facts: no rule has the support the miner asks for.
  ntp::TrainingData data =
      ntp::training_data_from_text("p(a, b).\nq(c, d).\nr(e, f).\ns(g, h).\n", "2  #1(X, Y) :- #2(Y, X).\n");
  data.dev.push_back({data.kb.predicates.find("p"), {data.kb.constants.find("b"), data.kb.constants.find("a")}});
  REQUIRE(ntp::can_choose_templates(data));
  REQUIRE(ntp::with_mined_templates(data).kb.templates.empty());
  ntp::ModelOptions model;
  model.dim = 4;
  ntp::TrainOptions options;
  options.epochs = 1;
  ntp::RunOptions run;
  run.mined_rules_on_dev = false;
  run.mined_templates_on_dev = true;
  run.model_path = std::string(NTP_BINARY_DIR) + "/templates_none_mined.ntp";
  std::ostringstream progress;
  const ntp::RunResult result = ntp::train(data, model, options, run, &progress);
  CHECK(result.finished);
  CHECK(result.templates_choice.empty());
  CHECK(progress.str().find("no rule mined from the training facts; the file's alone") != std::string::npos);
  CHECK(ntp::load_model(run.model_path).kb.templates.size() == 1);
  remove_run_files(run.model_path);
}
