// Training shared by a group of processes (train/shared_gradient.h), the
// group played by threads of one process, each with its own copy of the
// model: every member must end with the same model, to the bit, and that
// model must be one process's up to rounding.
#include "ntp/train/epochs.h"
#include "ntp/train/new_model.h"
#include "ntp/train/shared_gradient.h"

#include "kb_from_text.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace {

// all_gather for `count` threads: each waits until all have handed in their
// bytes, then every one gets all of them, in member order.
class ThreadGroup {
 public:
  explicit ThreadGroup(int count) : count_(count), handed_(static_cast<std::size_t>(count)) {}

  ntp::ProcessShare share(int index) {
    ntp::ProcessShare s;
    s.index = index;
    s.count = count_;
    s.all_gather = [this, index](const ntp::Bytes& mine) { return all_gather(index, mine); };
    return s;
  }

 private:
  std::vector<ntp::Bytes> all_gather(int index, const ntp::Bytes& mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    const long round = round_;
    handed_[static_cast<std::size_t>(index)] = mine;
    if (++arrived_ == count_) {  // the last to arrive hands out this round's bytes
      gathered_ = handed_;
      arrived_ = 0;
      ++round_;
      done_.notify_all();
      return gathered_;
    }
    done_.wait(lock, [&] { return round_ != round; });
    return gathered_;  // the next round cannot end before this member hands in again
  }

  const int count_;
  std::mutex mutex_;
  std::condition_variable done_;
  std::vector<ntp::Bytes> handed_, gathered_;
  int arrived_ = 0;
  long round_ = 0;
};

// Trains a copy of `start` per member of a group of `count`, each on a thread
// of its own (one OpenMP thread inside); returns the members' models.
std::vector<ntp::Model> train_in_group(const ntp::Model& start, const ntp::TrainOptions& options, int count) {
  ThreadGroup group(count);
  std::vector<ntp::Model> models(static_cast<std::size_t>(count), start);
  std::vector<std::thread> members;
  for (int i = 0; i < count; ++i)
    members.emplace_back([&, i] {
      omp_set_num_threads(1);
      ntp::TrainingState state;
      ntp::EpochHooks hooks;
      hooks.share = group.share(i);
      ntp::train_epochs(models[static_cast<std::size_t>(i)], options, state, hooks);
    });
  for (std::thread& m : members) m.join();
  return models;
}

ntp::Model trained_alone(ntp::Model model, const ntp::TrainOptions& options) {
  omp_set_num_threads(1);
  ntp::train_epochs(model, options);
  return model;
}

double distance(const ntp::Model& a, const ntp::Model& b) {
  return std::max((a.predicates.value - b.predicates.value).cwiseAbs().maxCoeff(),
                  (a.constants.value - b.constants.value).cwiseAbs().maxCoeff());
}

// Three relations over 12 constants, with an inverse and a chain template.
ntp::KnowledgeBase random_kb() {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> constant(0, 11), relation(0, 2);
  std::ostringstream facts;
  for (int i = 0; i < 50; ++i) facts << "r" << relation(rng) << "(c" << constant(rng) << ", c" << constant(rng) << ").\n";
  return kb_from_text(facts.str(), "1 #1(X, Y) :- #2(Y, X).\n1 #1(X, Y) :- #2(X, Z), #3(Z, Y).\n");
}

// Every member of groups of 2 and 3 holds the same model, to the bit, and
// that model is one process's up to rounding; training moved it.
void check_group_trains_as_one(const ntp::Model& start, const ntp::TrainOptions& options) {
  const ntp::Model alone = trained_alone(start, options);
  CHECK(distance(alone, start) > 0.01);
  for (int count : {2, 3}) {
    CAPTURE(count);
    const std::vector<ntp::Model> members = train_in_group(start, options, count);
    for (const ntp::Model& m : members) {
      CHECK(m.predicates.value == members[0].predicates.value);
      CHECK(m.constants.value == members[0].constants.value);
    }
    MESSAGE("a group of " << count << " against one process: " << distance(members[0], alone));
    CHECK(distance(members[0], alone) < 1e-9);
  }
}

}  // namespace

TEST_CASE("a gradient's rows go into bytes and back, and bytes of another model are refused") {
  ad::Parameter a("a", 5, 3), b("b", 4, 2);
  a.accumulate_row(3, ad::Matrix::Constant(1, 3, 0.25));
  a.accumulate_row(1, ad::Matrix::Constant(1, 3, -2.0));
  b.accumulate_row(0, ad::Matrix::Constant(1, 2, 7.0));
  const ntp::Bytes bytes = ntp::encode_gradient({&a, &b}, 1.5);
  ad::Parameter a2("a", 5, 3), b2("b", 4, 2);
  CHECK(ntp::add_gradient(bytes, {&a2, &b2}) == 1.5);
  CHECK(a2.grad == a.grad);
  CHECK(b2.grad == b.grad);
  CHECK(a2.touched == a.touched);
  ad::Parameter small("a", 2, 3);
  CHECK_THROWS_AS(ntp::add_gradient(bytes, {&small, &b2}), std::runtime_error);  // row 3 of 2
  ad::Parameter wide("a", 5, 4);
  CHECK_THROWS_AS(ntp::add_gradient(bytes, {&wide, &b2}), std::runtime_error);  // rows of 3 read as 4
  CHECK_THROWS_AS(ntp::add_gradient(ntp::Bytes(bytes.begin(), bytes.end() - 1), {&a2, &b2}), std::runtime_error);
}

TEST_CASE("the shares of n items take every third in turn and cover them once") {
  for (std::size_t n : {0, 1, 5, 12}) {
    std::vector<int> taken(n, 0);
    for (int i = 0; i < 3; ++i) {
      const std::vector<std::size_t> mine = ntp::share_items(n, ntp::ProcessShare{i, 3, nullptr});
      CHECK(mine.size() >= n / 3);
      CHECK(mine.size() <= n / 3 + 1);
      for (std::size_t item : mine) {
        CHECK(item % 3 == static_cast<std::size_t>(i));
        ++taken[item];
      }
    }
    CHECK(std::count(taken.begin(), taken.end(), 1) == static_cast<long>(n));
  }
}

TEST_CASE("a share of goals in groups takes whole groups, every third in turn") {
  ntp::StepGoals batch;
  for (int g = 0; g < 4; ++g)
    for (int j = 0; j < 3; ++j) {
      batch.goals.push_back({ntp::Atom{g, {j, j}}, -1});
      batch.labels.push_back(j == 0 ? 1 : 0);
    }
  const ntp::StepGoals first = ntp::share_of(batch, ntp::ProcessShare{0, 3, nullptr}, 3);
  REQUIRE(first.goals.size() == 6);  // groups 0 and 3
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(first.goals[i].atom.predicate == (i < 3 ? 0 : 3));
    CHECK(first.labels[i] == (i % 3 == 0 ? 1 : 0));
  }
  CHECK(ntp::share_of(batch, ntp::ProcessShare{2, 3, nullptr}, 3).goals.size() == 3);
  CHECK(ntp::share_of(batch, ntp::ProcessShare{2, 3, nullptr}).goals.size() == 4);  // goal by goal
}

TEST_CASE("a group trains the model one process trains, its members alike to the bit") {
  const ntp::KnowledgeBase kb = random_kb();
  ntp::TrainOptions o;
  o.epochs = 3;
  o.batch = 5;  // 50 facts: the last steps' goals fewer than some members' shares would want
  o.learning_rate = 0.05;
  SUBCASE("proofs") { check_group_trains_as_one(ntp::make_model(kb, 8, ntp::ProverConfig{}, 1), o); }
  SUBCASE("NTPλ, after ComplEx-only epochs of the 1-vs-all loss") {
    ntp::ProverConfig config;
    config.complex = true;
    o.complex_epochs = 2;
    o.complex_loss = ntp::ComplexLoss::All;
    check_group_trains_as_one(ntp::make_model(kb, 8, config, 1), o);
  }
  SUBCASE("the ranking proof loss: each positive proven with its corruptions by one member") {
    o.proof_loss = ntp::ProofLoss::Ranking;
    check_group_trains_as_one(ntp::make_model(kb, 8, ntp::ProverConfig{}, 1), o);
  }
  SUBCASE("a share with no goals: one positive a step, no corruption, three members") {
    o.batch = 1;
    o.negatives = 0;
    check_group_trains_as_one(ntp::make_model(kb, 8, ntp::ProverConfig{}, 1), o);
  }
}
