// ntp/eval/sample.cpp: a uniform sample of the test triples and the spread of
// its metrics (see sample.h).
#include "ntp/eval/sample.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

namespace ntp {

std::vector<std::size_t> sample_indices(std::size_t population, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> out;
  if (count >= population) {
    for (std::size_t i = 0; i < population; ++i) out.push_back(i);
    return out;
  }
  // Floyd: for j = N - n .. N - 1, draw t in [0, j]; take t unless taken, else j.
  // Each n-subset comes out with the same probability. The modulo's bias is
  // below 2^-40 for any test set that fits in memory.
  std::mt19937_64 rng(seed);
  std::set<std::size_t> chosen;
  for (std::size_t j = population - count; j < population; ++j) {
    const std::size_t t = static_cast<std::size_t>(rng() % (static_cast<std::uint64_t>(j) + 1));
    chosen.insert(chosen.count(t) ? j : t);
  }
  out.assign(chosen.begin(), chosen.end());
  return out;
}

double half_width_95(const std::vector<double>& values, std::size_t population) {
  const std::size_t n = values.size();
  if (n < 2) return 0;
  if (population < n) throw std::invalid_argument("half_width_95: more values than the population they came from");
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(n);
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  const double sd = std::sqrt(squares / static_cast<double>(n - 1));
  const double finite = std::sqrt(static_cast<double>(population - n) / static_cast<double>(population - 1));
  return 1.96 * sd / std::sqrt(static_cast<double>(n)) * finite;
}

RankingMetrics ranking_half_widths(const std::vector<double>& ranks, const std::vector<std::size_t>& triple_of,
                                   std::size_t population) {
  if (ranks.size() != triple_of.size()) throw std::invalid_argument("ranking_half_widths: one triple per rank");
  // Each triple's metrics over its own sides.
  std::map<std::size_t, std::vector<double>> sides;
  for (std::size_t i = 0; i < ranks.size(); ++i) sides[triple_of[i]].push_back(ranks[i]);
  std::vector<double> mrr, hits1, hits3, hits10;
  for (const auto& [triple, its_ranks] : sides) {
    const RankingMetrics m = ranking_metrics(its_ranks);
    mrr.push_back(m.mrr), hits1.push_back(m.hits1), hits3.push_back(m.hits3), hits10.push_back(m.hits10);
  }
  RankingMetrics half;
  half.mrr = half_width_95(mrr, population);
  half.hits1 = half_width_95(hits1, population);
  half.hits3 = half_width_95(hits3, population);
  half.hits10 = half_width_95(hits10, population);
  half.count = static_cast<int>(sides.size());
  return half;
}

}  // namespace ntp
