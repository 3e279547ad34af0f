// tools/cli/process_group.h: the processes `mpirun -np R ntp ...` started
// together, or this process alone.
//
// Only a build with -DNTP_MPI=ON (CMakeLists.txt) talks MPI; every other
// build, the static binary among them, is a group of one and needs no MPI
// library. The library itself never calls MPI: it takes a share and a
// function that gathers bytes (ntp/kb/process_share.h), which this class supplies.
#pragma once

#include <vector>

class ProcessGroup {
 public:
  ProcessGroup(int* argc, char*** argv);  // MPI_Init in an MPI build
  ~ProcessGroup();                        // MPI_Finalize
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The group's processes on this machine (this one among them): they share its cores.
  int size_on_this_machine() const { return on_this_machine_; }
  // Every process's bytes, in rank order, to every process (each must call it).
  std::vector<std::vector<unsigned char>> all_gather(const std::vector<unsigned char>& mine) const;
  // Ends every process of the group with `code` (MPI_Abort); alone, exits.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int on_this_machine_ = 1;
};
