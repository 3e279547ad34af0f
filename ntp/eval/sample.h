// ntp/eval/sample.h: ranking a random sample of a large test set, and how far
// the sample's metrics may lie from the whole set's.
//
// Ranking a test set costs its sides times the corruptions each must score
// or rule out; on FB15k-237 with a proof model that is hours. A uniform
// sample of n of the N test triples estimates each metric (a mean over
// sides), and the spread of its triples' values says how well:
//     half-width = 1.96 * sd / sqrt(n) * sqrt((N - n) / (N - 1)),
// sd being the sample standard deviation of the per-triple values (the mean
// of a triple's sides: its two sides are ranked against the same triple and
// are not independent draws), and the last factor the finite-population
// correction of drawing without replacement (0 when n = N: no uncertainty).
// A normal approximation: for a sample of a few hundred triples it is what
// the reported "± x" means, not an exact interval.
#pragma once

#include "ntp/eval/metrics.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ntp {

// `count` distinct indices of [0, population), ascending, uniform without
// replacement (Floyd's algorithm on std::mt19937_64 from `seed`, whose
// output the C++ standard fixes: the same draw with every compiler). All of
// them when count >= population.
std::vector<std::size_t> sample_indices(std::size_t population, std::size_t count, std::uint64_t seed);

// The 95% half-width above of the mean of `values` (one per sampled item),
// drawn from `population` items. 0 for fewer than two values.
double half_width_95(const std::vector<double>& values, std::size_t population);

// Per-metric half-widths of a sample's ranking metrics. `ranks` are the
// sample's side ranks and `triple_of[i]` the sampled triple (any id) that
// rank i belongs to; `population` the test set's triples.
RankingMetrics ranking_half_widths(const std::vector<double>& ranks, const std::vector<std::size_t>& triple_of,
                                   std::size_t population);

}  // namespace ntp
