// tools/cli/rank_files.cpp: a training group's files (see rank_files.h).
#include "rank_files.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace {

// An empty directory beside the model for process `rank`: M.rank1, ... A
// process killed before removing its own leaves it there, where the next
// run of the same model empties it.
std::string make_scratch(const std::string& model_path, int rank) {
  const std::string dir = model_path + ".rank" + std::to_string(rank);
  std::error_code failed;
  fs::remove_all(dir, failed);
  if (failed || !fs::create_directory(dir, failed))
    throw std::runtime_error(dir + ": cannot make the directory process " + std::to_string(rank) +
                             " keeps its files in" + (failed ? " (" + failed.message() + ")" : std::string()));
  return dir;
}

// The run's files: the model path's own file and those named after it
// (M.ckpt, M.l2-0.001, M.dev-choice.ckpt, ...).
bool is_run_file(const fs::path& file, const std::string& model_name) {
  const std::string name = file.filename().string();
  return name == model_name || name.rfind(model_name + ".", 0) == 0;
}

}  // namespace

RankFiles::RankFiles(const ProcessGroup& group, ntp::RunOptions& run) {
  if (group.rank() == 0) return;
  scratch_ = make_scratch(run.model_path, group.rank());
  const fs::path model(run.model_path);
  const fs::path folder = model.has_parent_path() ? model.parent_path() : fs::path(".");
  const std::string model_name = model.filename().string();
  std::error_code missing;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, missing))
    if (entry.is_regular_file() && is_run_file(entry.path(), model_name))
      fs::copy_file(entry.path(), fs::path(scratch_) / entry.path().filename());
  run.model_path = (fs::path(scratch_) / model_name).string();
  run.log_path.clear();
}

RankFiles::~RankFiles() {
  if (scratch_.empty()) return;
  std::error_code ignored;
  fs::remove_all(scratch_, ignored);
}
