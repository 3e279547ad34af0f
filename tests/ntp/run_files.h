// Shared by the ntp tests of training runs: a model's bytes as its file
// holds them (two runs that should agree are compared byte for byte),
// removing a run's files, and a stop asked for at a point of a run.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/checkpoint.h"

#include <atomic>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>

inline std::string bytes_of(const ntp::Model& m) {
  std::ostringstream out;
  ntp::write_model(m, out);
  return out.str();
}

// The model at `model_path` and its checkpoint.
inline void remove_run_files(const std::string& model_path) {
  std::remove(model_path.c_str());
  std::remove(ntp::checkpoint_path(model_path).c_str());
}

// A progress stream that raises `stop` once `needle` has been written to it:
// a stop asked for at that point of a run, as Ctrl-C would.
struct StopOnText : std::stringbuf {
  StopOnText(std::string needle, std::atomic<bool>& stop) : needle_(std::move(needle)), stop_(stop) {}
  int sync() override {
    if (str().find(needle_) != std::string::npos) stop_.store(true);
    return 0;
  }
  std::string needle_;
  std::atomic<bool>& stop_;
};
