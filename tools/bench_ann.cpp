// tools/bench_ann.cpp: builds and queries ann::Hnsw, ann::KdTree,
// ann::BruteForce and (when Debian's libhnswlib-dev was found at configure
// time) hnswlib on one synthetic data set, and prints Markdown tables: build
// time and index memory; recall@10 and queries/s over several ef values, one
// thread and all threads; the cost of moving 1%, 10%, 100% of the rows
// against a fresh build; and our/hnswlib ratios at recall@10 >= 0.95.
//
// Data sets: (a) 100,000 x 60 Gaussian mixture (1,000 clusters), (b) 100,000
// x 60 i.i.d. Gaussian, (c) 1,000,000 x 30 mixture, (d) 112,000 x 300
// mixture. Queries are extra rows drawn from the same distribution. Memory is
// counted from the structures (vectors, links, locks, id maps, visited
// sets), not measured; the process's peak RSS is printed at the end.
#include "ann/brute_force.h"
#include "ann/hnsw.h"
#include "ann/kd_tree.h"
#include "ann/synthetic.h"

#include <cxxopts.hpp>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>

#ifdef NTP_HAVE_HNSWLIB
#include <hnswlib/hnswlib.h>
#endif

namespace {

using ann::RowMatrix;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Dataset {
  std::string description;
  RowMatrix points;   // (n, d)
  RowMatrix queries;  // (q, d)
};

Dataset make_dataset(char which, int n, int d, int clusters, int queries, uint64_t seed) {
  Dataset out;
  RowMatrix all;
  std::ostringstream desc;
  if (which == 'b') {
    all = ann::synthetic_gaussian(n + queries, d, seed);
    desc << "(b) " << n << " x " << d << " i.i.d. Gaussian";
  } else {
    all = ann::synthetic_mixture(n + queries, d, clusters, seed);
    desc << "(" << which << ") " << n << " x " << d << " Gaussian mixture (" << clusters
         << " clusters, spread 0.3)";
  }
  out.points = all.topRows(n);
  out.queries = all.bottomRows(queries);
  out.description = desc.str();
  return out;
}

std::vector<int> parse_ints(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoi(item));
  return out;
}

std::vector<double> parse_doubles(const std::string& list) {
  std::vector<double> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

// Queries per second of `pass` (which answers `count` queries), as the median
// of `repeats` timings, each repeating the pass until `min_seconds` elapse.
template <class F>
double rate(F pass, int count, int repeats, double min_seconds) {
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    const Clock::time_point start = Clock::now();
    int passes = 0;
    double elapsed = 0;
    do {
      pass();
      ++passes;
      elapsed = seconds_since(start);
    } while (elapsed < min_seconds);
    rates.push_back(passes * static_cast<double>(count) / elapsed);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

struct Curve {
  std::string index;
  std::vector<int> ef;
  std::vector<double> recall, qps1, qpsn;
  // Highest one-thread q/s at recall >= target, or 0 if never reached.
  double best_qps(double target, int* at_ef) const {
    double best = 0;
    for (size_t i = 0; i < ef.size(); ++i)
      if (recall[i] >= target && qps1[i] > best) {
        best = qps1[i];
        *at_ef = ef[i];
      }
    return best;
  }
};

struct Built {
  std::string index;
  double build_seconds = 0;
  size_t bytes = 0;
};

double mb(size_t bytes) { return bytes / 1e6; }

// Rows to move and where: `count` distinct random rows, each sent next to
// another random row (plus N(0, 0.1^2) noise), i.e. relocated, not nudged.
std::pair<std::vector<int>, RowMatrix> moves(const RowMatrix& points, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> ids(static_cast<size_t>(points.rows()));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
  std::shuffle(ids.begin(), ids.end(), rng);
  ids.resize(static_cast<size_t>(count));
  std::uniform_int_distribution<int> pick(0, static_cast<int>(points.rows()) - 1);
  std::normal_distribution<float> noise(0.0f, 0.1f);
  RowMatrix to(count, points.cols());
  for (int i = 0; i < count; ++i) {
    to.row(i) = points.row(pick(rng));
    for (Eigen::Index j = 0; j < to.cols(); ++j) to(i, j) += noise(rng);
  }
  return {ids, to};
}

#ifdef NTP_HAVE_HNSWLIB
using HnswLib = hnswlib::HierarchicalNSW<float>;

// hnswlib's structures: level-0 blocks (links, vector, label), upper-layer
// lists and their pointer array, levels, both lock arrays, the label map
// (buckets plus one heap node per entry) and one visited list per thread.
size_t hnswlib_bytes(const HnswLib& h, int threads) {
  size_t bytes = h.max_elements_ * h.size_data_per_element_ + h.max_elements_ * sizeof(void*);
  for (size_t i = 0; i < h.cur_element_count; ++i)
    if (h.element_levels_[i] > 0) bytes += h.size_links_per_element_ * h.element_levels_[i];
  bytes += h.element_levels_.size() * sizeof(int);
  bytes += (h.link_list_locks_.size() + h.link_list_update_locks_.size()) * sizeof(std::mutex);
  bytes += h.label_lookup_.bucket_count() * sizeof(void*) + h.label_lookup_.size() * 32;
  bytes += static_cast<size_t>(threads) * h.max_elements_ * sizeof(unsigned short);
  return bytes;
}

ann::Neighbours hnswlib_search(const HnswLib& h, const RowMatrix& queries, int k) {
  const int m = static_cast<int>(queries.rows());
  ann::Neighbours out;
  out.k = k;
  out.ids.resize(static_cast<size_t>(m) * k);
  out.distances.resize(static_cast<size_t>(m) * k);
#pragma omp parallel for schedule(dynamic, 16)
  for (int q = 0; q < m; ++q) {
    auto found = h.searchKnn(queries.row(q).data(), static_cast<size_t>(k));
    for (int j = k - 1; j >= 0 && !found.empty(); --j) {
      out.ids[static_cast<size_t>(q) * k + j] = static_cast<int>(found.top().second);
      out.distances[static_cast<size_t>(q) * k + j] = found.top().first;
      found.pop();
    }
  }
  return out;
}
#endif

void print_curves(const std::vector<Curve>& curves, int threads) {
  std::printf("\n| index | ef | recall@10 | q/s, 1 thread | q/s, %d threads |\n", threads);
  std::printf("|---|---:|---:|---:|---:|\n");
  for (const Curve& c : curves)
    for (size_t i = 0; i < c.ef.size(); ++i) {
      const std::string ef = c.ef[i] > 0 ? std::to_string(c.ef[i]) : "-";
      std::printf("| %s | %s | %.4f | %.0f | %.0f |\n", c.index.c_str(), ef.c_str(), c.recall[i],
                  c.qps1[i], c.qpsn[i]);
    }
}

}  // namespace

int main(int argc, char** argv) {
  cxxopts::Options options("bench_ann", "Build and query ann::Hnsw, KdTree, BruteForce and hnswlib "
                                        "on one synthetic data set; prints Markdown tables.");
  options.add_options()
      ("dataset", "a: 100k x 60 mixture, b: 100k x 60 Gaussian, c: 1M x 30 mixture, "
                  "d: 112k x 300 mixture", cxxopts::value<std::string>()->default_value("a"))
      ("n,points", "points (0: the data set's)", cxxopts::value<int>()->default_value("0"))
      ("d,dim", "dimension (0: the data set's)", cxxopts::value<int>()->default_value("0"))
      ("clusters", "mixture components", cxxopts::value<int>()->default_value("1000"))
      ("queries", "query count", cxxopts::value<int>()->default_value("1000"))
      ("k,neighbours", "neighbours per query", cxxopts::value<int>()->default_value("10"))
      ("M,links", "HNSW links per node (2M on layer 0)", cxxopts::value<int>()->default_value("16"))
      ("ef-construction", "HNSW beam width while building", cxxopts::value<int>()->default_value("200"))
      ("ef", "comma-separated search beam widths", cxxopts::value<std::string>()->default_value("10,20,40,80,160,320"))
      ("threads", "threads for builds and batch search (0: all)", cxxopts::value<int>()->default_value("0"))
      ("seed", "data and level seed", cxxopts::value<uint64_t>()->default_value("1"))
      ("repeats", "timings per figure (median reported)", cxxopts::value<int>()->default_value("3"))
      ("min-time", "seconds per timing", cxxopts::value<double>()->default_value("0.3"))
      ("update", "comma-separated fractions of rows to move", cxxopts::value<std::string>()->default_value("0.01,0.1,1"))
      ("hnswlib-update-max", "largest fraction to move in hnswlib (its updates are slow)", cxxopts::value<double>()->default_value("0.1"))
      ("skip", "comma-separated: brute, kdtree, hnswlib, update", cxxopts::value<std::string>()->default_value(""))
      ("h,help", "print this help");
  cxxopts::ParseResult args;
  try {
    args = options.parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_ann: " << e.what() << "\n" << options.help() << "\n";
    return 2;
  }
  if (args.count("help")) {
    std::cout << options.help() << "\n";
    return 0;
  }
  const std::string which = args["dataset"].as<std::string>();
  if (which.size() != 1 || which[0] < 'a' || which[0] > 'd') {
    std::cerr << "bench_ann: --dataset must be one of a, b, c, d; got \"" << which << "\"\n";
    return 2;
  }
  const int default_n[] = {100000, 100000, 1000000, 112000};
  const int default_d[] = {60, 60, 30, 300};
  const int n = args["n"].as<int>() > 0 ? args["n"].as<int>() : default_n[which[0] - 'a'];
  const int d = args["d"].as<int>() > 0 ? args["d"].as<int>() : default_d[which[0] - 'a'];
  const int k = args["k"].as<int>();
  const int threads = args["threads"].as<int>() > 0 ? args["threads"].as<int>() : omp_get_max_threads();
  const int repeats = args["repeats"].as<int>();
  const double min_time = args["min-time"].as<double>();
  const std::vector<int> efs = parse_ints(args["ef"].as<std::string>());
  const std::string skip = "," + args["skip"].as<std::string>() + ",";
  auto skipped = [&](const char* what) { return skip.find("," + std::string(what) + ",") != std::string::npos; };
  ann::HnswParams params;
  params.M = args["M"].as<int>();
  params.ef_construction = args["ef-construction"].as<int>();
  params.seed = args["seed"].as<uint64_t>();

  Dataset data = make_dataset(which[0], n, d, args["clusters"].as<int>(), args["queries"].as<int>(),
                              args["seed"].as<uint64_t>());
  const RowMatrix& queries = data.queries;
  const int m = static_cast<int>(queries.rows());
  std::printf("## %s\n\n%d queries from the same distribution, k = %d, M = %d, efConstruction = %d, "
              "%d threads for builds and batches; q/s are medians of %d timings.\n",
              data.description.c_str(), m, k, params.M, params.ef_construction, threads, repeats);
  std::fflush(stdout);

  std::vector<Built> built;
  std::vector<Curve> curves;
  omp_set_num_threads(threads);

  // Exact neighbours, and brute force as a contender.
  ann::BruteForce brute;
  Clock::time_point start = Clock::now();
  brute.build(data.points);
  built.push_back({"BruteForce", seconds_since(start), brute.memory_bytes()});
  const ann::Neighbours truth = brute.search(queries, k);
  if (!skipped("brute")) {
    Curve c{"BruteForce", {0}, {1.0}, {}, {}};
    c.qpsn.push_back(rate([&] { brute.search(queries, k); }, m, repeats, min_time));
    omp_set_num_threads(1);
    c.qps1.push_back(rate([&] { brute.search(queries, k); }, m, repeats, min_time));
    omp_set_num_threads(threads);
    curves.push_back(c);
  }

  // Ours.
  ann::Hnsw hnsw(params);
  start = Clock::now();
  hnsw.build(data.points);
  const double our_build = seconds_since(start);
  hnsw.check_integrity();
  {
    Curve c{"ann::Hnsw", efs, {}, {}, {}};
    for (int ef : efs) {
      c.recall.push_back(ann::recall_at_k(hnsw.search(queries, k, ef), truth, k));
      c.qpsn.push_back(rate([&] { hnsw.search(queries, k, ef); }, m, repeats, min_time));
      omp_set_num_threads(1);
      c.qps1.push_back(rate([&] { hnsw.search(queries, k, ef); }, m, repeats, min_time));
      omp_set_num_threads(threads);
    }
    curves.push_back(c);
  }
  built.push_back({"ann::Hnsw", our_build, hnsw.memory_bytes()});
  std::fflush(stdout);

#ifdef NTP_HAVE_HNSWLIB
  std::unique_ptr<hnswlib::L2Space> space;
  std::unique_ptr<HnswLib> lib;
  if (!skipped("hnswlib")) {
    space = std::make_unique<hnswlib::L2Space>(d);
    start = Clock::now();
    lib = std::make_unique<HnswLib>(space.get(), static_cast<size_t>(n), static_cast<size_t>(params.M),
                                    static_cast<size_t>(params.ef_construction), params.seed);
#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < n; ++i) lib->addPoint(data.points.row(i).data(), static_cast<size_t>(i));
    const double lib_build = seconds_since(start);
    Curve c{"hnswlib", efs, {}, {}, {}};
    for (int ef : efs) {
      lib->setEf(static_cast<size_t>(ef));
      c.recall.push_back(ann::recall_at_k(hnswlib_search(*lib, queries, k), truth, k));
      c.qpsn.push_back(rate([&] { hnswlib_search(*lib, queries, k); }, m, repeats, min_time));
      omp_set_num_threads(1);
      c.qps1.push_back(rate([&] { hnswlib_search(*lib, queries, k); }, m, repeats, min_time));
      omp_set_num_threads(threads);
    }
    curves.push_back(c);
    built.push_back({"hnswlib", lib_build, hnswlib_bytes(*lib, threads)});
  }
#endif

  if (!skipped("kdtree")) {
    ann::KdTree tree;
    start = Clock::now();
    tree.build(data.points);
    built.push_back({"KdTree", seconds_since(start), tree.memory_bytes()});
    // Slow above ~10 dimensions: time it on at most 200 queries.
    const RowMatrix few = queries.topRows(std::min(m, 200));
    Curve c{"KdTree", {0}, {1.0}, {}, {}};
    c.qpsn.push_back(rate([&] { tree.search(few, k); }, static_cast<int>(few.rows()), 1, min_time));
    omp_set_num_threads(1);
    c.qps1.push_back(rate([&] { tree.search(few, k); }, static_cast<int>(few.rows()), 1, min_time));
    omp_set_num_threads(threads);
    curves.push_back(c);
  }

  std::printf("\n| index | build s | memory MB | bytes/point |\n|---|---:|---:|---:|\n");
  for (const Built& b : built)
    std::printf("| %s | %.2f | %.1f | %.0f |\n", b.index.c_str(), b.build_seconds, mb(b.bytes),
                static_cast<double>(b.bytes) / n);
  print_curves(curves, threads);

  // Ratios against hnswlib at recall@10 >= 0.95.
  const Curve* ours = nullptr;
  const Curve* theirs = nullptr;
  for (const Curve& c : curves) {
    if (c.index == "ann::Hnsw") ours = &c;
    if (c.index == "hnswlib") theirs = &c;
  }
  if (ours && theirs) {
    int our_ef = 0, their_ef = 0;
    const double a = ours->best_qps(0.95, &our_ef), b = theirs->best_qps(0.95, &their_ef);
    const Built& ob = built[1];
    const Built& tb = built[2];
    std::printf("\nAt recall@10 >= 0.95, one thread: ann::Hnsw %.0f q/s (ef %d), hnswlib %.0f q/s "
                "(ef %d): q/s ratio %.2f (target >= 1.0). Build %.2f s vs %.2f s: ratio %.2f "
                "(target <= 1.0). Memory %.1f MB vs %.1f MB: ratio %.2f (target <= 1.1).\n",
                a, our_ef, b, their_ef, b > 0 ? a / b : 0.0, ob.build_seconds, tb.build_seconds,
                ob.build_seconds / tb.build_seconds, mb(ob.bytes), mb(tb.bytes),
                static_cast<double>(ob.bytes) / tb.bytes);
  }
  std::fflush(stdout);

  if (!skipped("update")) {
    // Moves are cumulative: each fraction starts from the previous state.
    const int probe_ef = params.ef;
    std::printf("\nMoving rows (relocated next to another random row), cumulative; recall@10 at "
                "ef = %d after each step; a fresh ann::Hnsw build took %.2f s.\n\n",
                probe_ef, our_build);
    std::printf("| rows moved | ann::Hnsw s | vs fresh build | recall@10 | hnswlib s | hnswlib recall@10 |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|\n");
    uint64_t seed = 1000;
    for (double fraction : parse_doubles(args["update"].as<std::string>())) {
      const int count = std::max(1, static_cast<int>(fraction * n + 0.5));
      const auto [ids, to] = moves(hnsw.points(), count, seed++);
      start = Clock::now();
      hnsw.update(ids, to);
      const double seconds = seconds_since(start);
      hnsw.check_integrity();
      brute.update(ids, to);
      const ann::Neighbours now = brute.search(queries, k);
      const double recall = ann::recall_at_k(hnsw.search(queries, k, probe_ef), now, k);
      std::string lib_seconds = "-", lib_recall = "-";
#ifdef NTP_HAVE_HNSWLIB
      if (lib && fraction <= args["hnswlib-update-max"].as<double>() + 1e-12) {
        start = Clock::now();
#pragma omp parallel for schedule(dynamic, 16)
        for (int i = 0; i < count; ++i) lib->addPoint(to.row(i).data(), static_cast<size_t>(ids[i]));
        char buffer[64];
        std::snprintf(buffer, sizeof(buffer), "%.2f", seconds_since(start));
        lib_seconds = buffer;
        lib->setEf(static_cast<size_t>(probe_ef));
        std::snprintf(buffer, sizeof(buffer), "%.4f",
                      ann::recall_at_k(hnswlib_search(*lib, queries, k), now, k));
        lib_recall = buffer;
      }
#endif
      std::printf("| %d (%.0f%%) | %.2f | %.2fx | %.4f | %s | %s |\n", count, 100 * fraction, seconds,
                  seconds / our_build, recall, lib_seconds.c_str(), lib_recall.c_str());
      std::fflush(stdout);
    }
    std::printf("\nann::Hnsw relinks in place up to %.0f%% of the rows and rebuilds above.\n",
                100 * params.rebuild_fraction);
  }

  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  std::printf("\nPeak RSS of the whole run (all indexes and data): %.0f MB.\n", usage.ru_maxrss / 1e3);
  return 0;
}
