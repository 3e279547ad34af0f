// ntp/eval/shards.cpp: a ranking shared by several processes (see shards.h).
#include "ntp/eval/shards.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ntp {

namespace {

// One side's fields, each at a fixed width: the same bytes to every process
// of a group (one binary on one kind of machine).
constexpr std::size_t kSideBytes = sizeof(std::uint64_t) + sizeof(std::int32_t) + 2 * sizeof(double) +
                                   2 * sizeof(std::int64_t) + 2 * sizeof(std::uint8_t);

template <typename T>
void put(std::vector<unsigned char>& out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

template <typename T>
T take(const unsigned char*& at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  at += sizeof(T);
  return value;
}

}  // namespace

void check_shard(const EvalShard& shard) {
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw std::invalid_argument("shard " + std::to_string(shard.index) + " of " + std::to_string(shard.count) +
                                ": the index must lie in [0, count)");
  if (shard.count > 1 && !shard.all_gather)
    throw std::invalid_argument("a ranking shared by " + std::to_string(shard.count) + " processes needs all_gather");
}

std::vector<std::size_t> shard_triples(std::size_t triples, const EvalShard& shard) {
  std::vector<std::size_t> mine;
  for (std::size_t t = static_cast<std::size_t>(shard.index); t < triples; t += static_cast<std::size_t>(shard.count))
    mine.push_back(t);
  return mine;
}

std::vector<unsigned char> encode_sides(const std::vector<SideRank>& sides) {
  std::vector<unsigned char> out;
  out.reserve(sides.size() * kSideBytes);
  for (const SideRank& s : sides) {
    put<std::uint64_t>(out, s.triple);
    put<std::int32_t>(out, s.side);
    put<double>(out, s.mean);
    put<double>(out, s.optimistic);
    put<std::int64_t>(out, s.scored);
    put<std::int64_t>(out, s.corruptions);
    put<std::uint8_t>(out, s.tied ? 1 : 0);
    put<std::uint8_t>(out, s.tied_on_score ? 1 : 0);
  }
  return out;
}

std::vector<SideRank> decode_sides(const std::vector<unsigned char>& bytes) {
  if (bytes.size() % kSideBytes != 0)
    throw std::runtime_error("ranked sides from another process: " + std::to_string(bytes.size()) +
                             " bytes are not a whole number of sides (" + std::to_string(kSideBytes) + " bytes each)");
  std::vector<SideRank> sides(bytes.size() / kSideBytes);
  const unsigned char* at = bytes.data();
  for (SideRank& s : sides) {
    s.triple = static_cast<std::size_t>(take<std::uint64_t>(at));
    s.side = take<std::int32_t>(at);
    s.mean = take<double>(at);
    s.optimistic = take<double>(at);
    s.scored = take<std::int64_t>(at);
    s.corruptions = take<std::int64_t>(at);
    s.tied = take<std::uint8_t>(at) != 0;
    s.tied_on_score = take<std::uint8_t>(at) != 0;
  }
  return sides;
}

RankingResult gather_shards(const EvalShard& shard, std::vector<SideRank> mine) {
  check_shard(shard);
  if (shard.count == 1) return summarise_ranks(std::move(mine));
  std::vector<SideRank> all;
  for (const std::vector<unsigned char>& bytes : shard.all_gather(encode_sides(mine))) {
    const std::vector<SideRank> theirs = decode_sides(bytes);
    all.insert(all.end(), theirs.begin(), theirs.end());
  }
  std::stable_sort(all.begin(), all.end(), [](const SideRank& a, const SideRank& b) {
    return a.triple < b.triple || (a.triple == b.triple && a.side < b.side);
  });
  return summarise_ranks(std::move(all));
}

}  // namespace ntp
