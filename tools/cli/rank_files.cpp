// tools/cli/rank_files.cpp: a training group's files (see rank_files.h).
#include "rank_files.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace {

// A new empty directory under the system's temporary directory.
std::string make_scratch(int rank) {
  std::string pattern = (fs::temp_directory_path() / ("ntp-rank" + std::to_string(rank) + "-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr)
    throw std::runtime_error(pattern + ": cannot make a scratch directory for process " + std::to_string(rank));
  return name.data();
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
  scratch_ = make_scratch(group.rank());
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
