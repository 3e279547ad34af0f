// tools/cli/rank_files.cpp: a training group's files (see rank_files.h).
#include "rank_files.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
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

// The files of the run at `model_path`, in the model's folder.
std::vector<fs::path> run_files(const std::string& model_path) {
  const fs::path model(model_path);
  const fs::path folder = model.has_parent_path() ? model.parent_path() : fs::path(".");
  std::vector<fs::path> files;
  std::error_code missing;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, missing))
    if (entry.is_regular_file() && is_run_file(entry.path(), model.filename().string())) files.push_back(entry.path());
  return files;
}

// Their names, sorted, one a line: what each process of a resumed group must hold alike.
std::vector<unsigned char> file_names(const std::vector<fs::path>& files) {
  std::vector<std::string> names;
  for (const fs::path& file : files) names.push_back(file.filename().string());
  std::sort(names.begin(), names.end());
  std::vector<unsigned char> out;
  for (const std::string& name : names) {
    out.insert(out.end(), name.begin(), name.end());
    out.push_back('\n');
  }
  return out;
}

}  // namespace

RankFiles::RankFiles(const ProcessGroup& group, ntp::RunOptions& run) {
  if (group.size() == 1) return;
  // What this process reads of the run's files: what it resumes from.
  const std::vector<fs::path> files = run.resume ? run_files(run.model_path) : std::vector<fs::path>{};
  if (group.rank() != 0) {
    scratch_ = make_scratch(run.model_path, group.rank());
    for (const fs::path& file : files) fs::copy_file(file, fs::path(scratch_) / file.filename());
    run.model_path = (fs::path(scratch_) / fs::path(run.model_path).filename()).string();
    run.log_path.clear();
  }
  // Collective: every copy is made before process 0 writes anything, and a
  // resumed group starts from the same files everywhere (on machines without
  // a shared file system, process 0's files may be missing elsewhere).
  const auto held = group.all_gather(file_names(files));
  for (const auto& theirs : held)
    if (theirs != held.front())
      throw std::runtime_error(run.model_path + ": to resume, every process must read process 0's files (" +
                               "a folder all of them share); this one holds other files");
}

RankFiles::~RankFiles() {
  if (scratch_.empty()) return;
  std::error_code ignored;
  fs::remove_all(scratch_, ignored);
}
