// tools/cli/process_group.cpp: MPI, or a group of one (see process_group.h).
#include "process_group.h"

#include <cstdlib>
#include <stdexcept>

#ifdef NTP_WITH_MPI
#include <mpi.h>

ProcessGroup::ProcessGroup(int* argc, char*** argv) {
  // Only the main thread calls MPI; OpenMP threads inside a process never do.
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm machine;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &machine);
  MPI_Comm_size(machine, &on_this_machine_);
  MPI_Comm_free(&machine);
}

ProcessGroup::~ProcessGroup() { MPI_Finalize(); }

std::vector<std::vector<unsigned char>> ProcessGroup::all_gather(const std::vector<unsigned char>& mine) const {
  if (mine.size() > static_cast<std::size_t>(2147483647))
    throw std::runtime_error("all_gather: more than 2 GiB from one process");
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  long long total = 0;
  for (int r = 0; r < size_; ++r) {
    if (total > 2147483647) throw std::runtime_error("all_gather: more than 2 GiB in all");
    offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<unsigned char> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), count, MPI_UNSIGNED_CHAR, all.data(), counts.data(), offsets.data(), MPI_UNSIGNED_CHAR,
                 MPI_COMM_WORLD);
  std::vector<std::vector<unsigned char>> out;
  for (int r = 0; r < size_; ++r) {
    const auto begin = all.begin() + offsets[static_cast<std::size_t>(r)];
    out.emplace_back(begin, begin + counts[static_cast<std::size_t>(r)]);
  }
  return out;
}

void ProcessGroup::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);  // MPI_Abort does not return; this is for the compiler
}

#else

ProcessGroup::ProcessGroup(int*, char***) {}
ProcessGroup::~ProcessGroup() = default;

std::vector<std::vector<unsigned char>> ProcessGroup::all_gather(const std::vector<unsigned char>& mine) const {
  return {mine};
}

void ProcessGroup::abort(int code) const { std::exit(code); }

#endif
