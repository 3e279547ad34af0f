// ntp/kb/process_share.h: this process's share of a job that a group of
// processes (`mpirun -np R ntp ...`) does together: a ranking (eval/shards.h)
// or a training run (train/shared_gradient.h).
//
// The library never talks MPI: it is handed its place in the group and a
// function that gathers bytes, which the `ntp` command supplies
// (tools/cli/process_group.h). A share of one is a process alone: it takes
// no share of anything and calls no all_gather.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

namespace ntp {

using Bytes = std::vector<unsigned char>;

struct ProcessShare {
  int index = 0;  // this process's place, 0 <= index < count
  int count = 1;  // processes in the group
  // Every process's bytes, in process order, to every process; each must call
  // it at the same point of the job (a collective call).
  std::function<std::vector<Bytes>(const Bytes&)> all_gather;
  bool alone() const { return count == 1; }
};

// Throws std::invalid_argument unless 0 <= index < count, and a group of
// several has an all_gather.
void check_share(const ProcessShare& share);

// Whether any process of the group says `mine` (a collective call; alone, mine).
bool any_process(const ProcessShare& share, bool mine);
// Whether every process of the group says `mine` (the same, collective).
inline bool every_process(const ProcessShare& share, bool mine) { return !any_process(share, !mine); }

// The items of `n` that `share` takes: index, index + count, ... Dealt in
// turn, not cut in blocks, so that neighbouring items (a fact and its
// corruptions, which cost alike to prove) spread over the processes.
std::vector<std::size_t> share_items(std::size_t n, const ProcessShare& share);

// Fixed-width fields into bytes and out again: the same bytes to every process
// of a group (one binary on one kind of machine).
template <typename T>
void put_bytes(Bytes& out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

template <typename T>
T take_bytes(const unsigned char*& at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  at += sizeof(T);
  return value;
}

}  // namespace ntp
