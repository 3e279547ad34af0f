// ntp/train/checkpoint.h: what a training run (train.h) writes after every
// epoch (and when it is stopped) so that training can be resumed exactly: the
// model as it is, the loop's position and random state, the optimiser's
// moments, the best dev metric so far, and the settings it was trained with.
//
// Format: magic "NTPCHECK", version, the settings text, the training state,
// the best dev metric and its epoch, the training's seconds so far (version
// 2; version 1 files have none and read as 0), the choices made on dev
// after training (version 3; older files have none), then a whole model file
// (model.h).
// Written atomically (atomic_file.h); a damaged file is refused on reading
// with its path and what was wrong, as model files are.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/training_state.h"

#include <cstdint>
#include <string>

namespace ntp {

// The choices made on dev once training ended (train.h), recorded when each
// is done and the model file holds it, so that resuming a finished run
// (one stopped in a later choice, or in another candidate's run) does not
// make them again. They are trusted only for the same choices asked and a
// model file whose bytes are still those recorded (not rewritten by a later
// step, a better epoch or another hand); training on clears them. The
// descriptions are RunResult's (empty: none to make).
struct ChoicesMade {
  bool on_kept = false;      // the proof search width and the combine rule
  std::string width, combine;
  bool mined_rules = false;  // the mined rules beside the model
  std::string mined;
  std::string asked;         // which choices the run asked for, as train.cpp writes it
  std::uint64_t model_file = 0;  // file_fingerprint of the model file once they were made
};

// A 64-bit FNV-1a hash of the bytes of the file at `path`; 0 if it cannot be read.
std::uint64_t file_fingerprint(const std::string& path);

struct Checkpoint {
  std::string settings;     // training_settings(): a resumed run must have the same
  TrainingState state;
  double best_dev = -1;     // best dev metric so far (-1: none measured)
  int best_epoch = 0;       // the epoch it was measured after (0: none)
  ChoicesMade choices;
  Model model;              // as trained: the choices are in the model file, not here
};

// The checkpoint of the model written to `model_path`.
std::string checkpoint_path(const std::string& model_path);

void save_checkpoint(const Checkpoint& checkpoint, const std::string& path);
Checkpoint load_checkpoint(const std::string& path);
// The same from a seekable stream; `name` is used in error messages.
Checkpoint load_checkpoint(std::istream& in, const std::string& name);

}  // namespace ntp
