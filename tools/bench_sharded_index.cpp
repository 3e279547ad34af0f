// tools/bench_sharded_index.cpp: what a fact index split over S machines
// would cost, simulated in one process. When a KB's facts no longer fit one
// machine, each of S processes would index its share of the facts (an HNSW
// graph of N/S points), every or-step's query would go to all of them, and
// their top-k lists would be merged by distance. This program builds the S
// shards of one synthetic data set (a Gaussian mixture, as facts' embeddings
// cluster by relation), asks each query of every shard in turn, merges, and
// prints a Markdown table per S: build time, one shard's query time, the
// merged query's total work (every shard's, the CPU a query costs the
// cluster) and its latency if the shards answered in parallel (the slowest
// shard plus the merge; the network not counted), and recall@1 and @10 of
// the merged lists against an exact search.
//
// usage: bench_sharded_index [--points N] [--dim D] [--queries Q] [--shards 1,2,4,8]
#include "ann/brute_force.h"
#include "ann/hnsw.h"
#include "ann/synthetic.h"

#include <cxxopts.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

using ann::RowMatrix;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// One shard: its points' rows of the whole set, and their index.
struct Shard {
  std::vector<int> ids;  // row in the whole set of each of the shard's points
  std::unique_ptr<ann::Hnsw> index;
};

// Shard s holds the points i with i % shards == s (facts dealt round-robin).
std::vector<Shard> build_shards(const RowMatrix& points, int shards) {
  std::vector<Shard> out(static_cast<std::size_t>(shards));
  for (int s = 0; s < shards; ++s) {
    Shard& shard = out[static_cast<std::size_t>(s)];
    for (int i = s; i < points.rows(); i += shards) shard.ids.push_back(i);
    RowMatrix mine(static_cast<Eigen::Index>(shard.ids.size()), points.cols());
    for (std::size_t r = 0; r < shard.ids.size(); ++r) mine.row(static_cast<Eigen::Index>(r)) = points.row(shard.ids[r]);
    shard.index = std::make_unique<ann::Hnsw>();
    shard.index->build(mine);
  }
  return out;
}

// The merged top-k of one query: every shard's k nearest, the k nearest of them.
struct Timed {
  ann::Neighbours merged;
  double slowest_shard = 0;  // seconds, summed over queries: the latency if shards ran in parallel
  double all_shards = 0;     // seconds, summed over queries and shards: the cluster's work
  double merge = 0;
};

Timed query_shards(const std::vector<Shard>& shards, const RowMatrix& queries, int k) {
  Timed t;
  t.merged.k = k;
  for (Eigen::Index q = 0; q < queries.rows(); ++q) {
    std::vector<std::pair<float, int>> found;
    double slowest = 0;
    for (const Shard& shard : shards) {
      const Clock::time_point start = Clock::now();
      const ann::Neighbours n = shard.index->search(queries.row(q), k);
      const double seconds = seconds_since(start);
      slowest = std::max(slowest, seconds);
      t.all_shards += seconds;
      for (int j = 0; j < n.k; ++j)
        if (n.ids[static_cast<std::size_t>(j)] >= 0)
          found.emplace_back(n.distances[static_cast<std::size_t>(j)], shard.ids[static_cast<std::size_t>(n.ids[static_cast<std::size_t>(j)])]);
    }
    const Clock::time_point start = Clock::now();
    std::partial_sort(found.begin(), found.begin() + std::min<std::ptrdiff_t>(k, static_cast<std::ptrdiff_t>(found.size())), found.end());
    for (int j = 0; j < k; ++j) {
      const bool have = j < static_cast<int>(found.size());
      t.merged.ids.push_back(have ? found[static_cast<std::size_t>(j)].second : -1);
      t.merged.distances.push_back(have ? found[static_cast<std::size_t>(j)].first : 0.0f);
    }
    t.merge += seconds_since(start);
    t.slowest_shard += slowest;
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  cxxopts::Options o("bench_sharded_index", "A fact index split over S machines, simulated in one process.");
  o.add_options()("points", "points (facts)", cxxopts::value<int>()->default_value("200000"))(
      "dim", "dimension", cxxopts::value<int>()->default_value("100"))(
      "queries", "queries", cxxopts::value<int>()->default_value("2000"))(
      "shards", "shard counts", cxxopts::value<std::vector<int>>()->default_value("1,2,4,8"))("help", "this help");
  const auto r = o.parse(argc, argv);
  if (r.count("help")) {
    std::printf("%s\n", o.help().c_str());
    return 0;
  }
  omp_set_num_threads(1);  // one query on one thread: the times are a query's own
  const int n = r["points"].as<int>(), d = r["dim"].as<int>(), nq = r["queries"].as<int>();
  const RowMatrix all = ann::synthetic_mixture(n + nq, d, 1000, 7);
  const RowMatrix points = all.topRows(n), queries = all.bottomRows(nq);
  ann::BruteForce exact;
  exact.build(points);
  const ann::Neighbours truth = exact.search(queries, 10);
  std::printf("%d points x %d, %d queries, HNSW M 16, ef 64, one thread\n\n", n, d, nq);
  std::printf("| shards | build s | one shard's query us | merged query: work us | latency us | recall@1 | recall@10 |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int shards : r["shards"].as<std::vector<int>>()) {
    const Clock::time_point start = Clock::now();
    const std::vector<Shard> built = build_shards(points, shards);
    const double build = seconds_since(start);
    const Timed top10 = query_shards(built, queries, 10);
    const Timed top1 = query_shards(built, queries, 1);
    const double per = 1e6 / nq;
    std::printf("| %d | %.1f | %.1f | %.1f | %.1f | %.4f | %.4f |\n", shards, build, top10.all_shards * per / shards,
                top10.all_shards * per, (top10.slowest_shard + top10.merge) * per, ann::recall_at_k(top1.merged, truth, 1),
                ann::recall_at_k(top10.merged, truth, 10));
    std::fflush(stdout);
  }
  return 0;
}
