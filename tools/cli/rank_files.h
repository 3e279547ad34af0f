// tools/cli/rank_files.h: where the processes of a training group keep their
// files (`mpirun -np R ntp train`).
//
// Every process of the group holds the same model and runs the whole run, so
// each writes and reads back its model and checkpoints as one process would
// (the choices on dev reload the model they wrote). Process 0 writes them at
// the paths given; every other process works in a directory of its own
// beside the model (M.rank1, M.rank2, ...), starting from copies of the
// run's files when resuming (it reads its checkpoint there), which it
// removes at the end. Only process 0 keeps a log.
#pragma once

#include "process_group.h"

#include "ntp/train/options.h"

#include <string>

class RankFiles {
 public:
  // Alone, or as process 0, leaves `run` as it is; else moves its model path
  // (and so every file named after it) into its own directory, holding
  // copies of the files named after the model path when resuming, and drops
  // the log. In a group, a collective call: it returns once every process
  // has made its copies, before process 0 writes anything.
  RankFiles(const ProcessGroup& group, ntp::RunOptions& run);
  ~RankFiles();  // removes the scratch directory, if any
  RankFiles(const RankFiles&) = delete;
  RankFiles& operator=(const RankFiles&) = delete;

 private:
  std::string scratch_;  // empty for process 0
};
