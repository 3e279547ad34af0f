// Shared by the ntp tests of training runs: a model's bytes as its file
// holds them (two runs that should agree are compared byte for byte), and
// removing a run's files.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/checkpoint.h"

#include <cstdio>
#include <sstream>
#include <string>

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
