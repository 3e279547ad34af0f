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

}  // namespace

std::vector<unsigned char> encode_sides(const std::vector<SideRank>& sides) {
  std::vector<unsigned char> out;
  out.reserve(sides.size() * kSideBytes);
  for (const SideRank& s : sides) {
    put_bytes<std::uint64_t>(out, s.triple);
    put_bytes<std::int32_t>(out, s.side);
    put_bytes<double>(out, s.mean);
    put_bytes<double>(out, s.optimistic);
    put_bytes<std::int64_t>(out, s.scored);
    put_bytes<std::int64_t>(out, s.corruptions);
    put_bytes<std::uint8_t>(out, s.tied ? 1 : 0);
    put_bytes<std::uint8_t>(out, s.tied_on_score ? 1 : 0);
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
    s.triple = static_cast<std::size_t>(take_bytes<std::uint64_t>(at));
    s.side = take_bytes<std::int32_t>(at);
    s.mean = take_bytes<double>(at);
    s.optimistic = take_bytes<double>(at);
    s.scored = take_bytes<std::int64_t>(at);
    s.corruptions = take_bytes<std::int64_t>(at);
    s.tied = take_bytes<std::uint8_t>(at) != 0;
    s.tied_on_score = take_bytes<std::uint8_t>(at) != 0;
  }
  return sides;
}

RankingResult gather_shards(const ProcessShare& shard, std::vector<SideRank> mine) {
  check_share(shard);
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
