// Resumable training in the library: train() stopped by its flag and resumed
// from its state takes the same steps as an uninterrupted run; checkpoints
// round-trip and a damaged one is refused with its path.
#include "ntp/ntp.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace {

ntp::Model small_model() {
  ntp::ModelOptions mo;
  mo.dim = 6;
  mo.seed = 2;
  std::ostringstream facts;
  for (int i = 1; i <= 12; ++i) facts << "r(a" << i << ",b" << i << ").\ns(b" << i << ",a" << i << ").\n";
  return ntp::new_model(ntp::training_data_from_text(facts.str(), "2  #1(X, Y) :- #2(Y, X).\n"), mo);
}

ntp::TrainOptions options(int epochs) {
  ntp::TrainOptions t;
  t.epochs = epochs;
  t.batch = 5;
  t.learning_rate = 0.05;
  t.seed = 9;
  return t;
}

std::string bytes_of(const ntp::Model& m) {
  std::ostringstream out;
  ntp::write_model(m, out);
  return out.str();
}

}  // namespace

TEST_CASE("a stopped and resumed train() gives the model of an uninterrupted one") {
  omp_set_num_threads(1);
  ntp::Model straight = small_model();
  ntp::train(straight, options(3), nullptr);

  ntp::Model model = small_model();
  ntp::TrainingState state;
  std::atomic<bool> stop{true};  // raised from the start: stop after the first step
  ntp::train(model, options(3), nullptr, {}, &state, &stop);
  CHECK(state.stopped);
  CHECK(state.epochs_done == 0);
  CHECK(state.steps_done == 1);
  // Through a checkpoint file, as `ntp train --resume` does.
  const std::string path = std::string(NTP_BINARY_DIR) + "/run_test.ckpt";
  ntp::Checkpoint saved;
  saved.settings = "lr=0.05\n";
  saved.state = state;
  saved.model = model;
  ntp::save_checkpoint(saved, path);
  ntp::Checkpoint loaded = ntp::load_checkpoint(path);
  CHECK(loaded.settings == saved.settings);
  CHECK(loaded.state.steps_done == 1);
  CHECK(bytes_of(loaded.model) == bytes_of(model));
  stop = false;
  int epochs_seen = 0;
  ntp::train(loaded.model, options(3), nullptr, [&](ntp::EpochReport&) { ++epochs_seen; }, &loaded.state, &stop);
  CHECK(!loaded.state.stopped);
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
