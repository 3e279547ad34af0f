// ntp/eval/shards.h: one ranking shared by a group of processes (ProcessShare).
//
// Each process ranks every count-th test triple, starting at its index
// (share_items, kb/process_share.h); the
// ranked sides travel as bytes (the transport, MPI in the `ntp` command, only
// moves them) and are put back in test order, so that the metrics, summed in
// that order, and the ranks file are those of one process: a side's rank
// depends only on the model, its triple and the filter, never on which other
// triples a process ranked.
#pragma once

#include "ntp/eval/ranking.h"
#include "ntp/eval/request.h"

#include <cstddef>
#include <vector>

namespace ntp {

// Sides as bytes, and back; decode_sides throws std::runtime_error on bytes
// that are not a whole number of encoded sides.
std::vector<unsigned char> encode_sides(const std::vector<SideRank>& sides);
std::vector<SideRank> decode_sides(const std::vector<unsigned char>& bytes);

// Every process's sides (`mine` are this one's, their triples indices into
// the whole test list), in test order, subject side first, and their metrics.
RankingResult gather_shards(const ProcessShare& shard, std::vector<SideRank> mine);

}  // namespace ntp
