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
#include <functional>
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

double cpu_seconds(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Wall-clock and CPU seconds of one piece of work. On this shared machine the
// wall clock also counts time stolen by other processes; CPU time does not
// (it still suffers from their cache and memory traffic).
struct Stopwatch {
  explicit Stopwatch(clockid_t cpu_clock = CLOCK_PROCESS_CPUTIME_ID)
      : clock(cpu_clock), wall_start(Clock::now()), cpu_start(cpu_seconds(cpu_clock)) {}
  double wall() const { return seconds_since(wall_start); }
  double cpu() const { return cpu_seconds(clock) - cpu_start; }
  clockid_t clock;
  Clock::time_point wall_start;
  double cpu_start;
};

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
  // Split without a second copy of the points, so that the data's peak
  // memory is one copy (see --only).
  out.queries = all.bottomRows(queries);
  all.conservativeResize(n, d);
  out.points = std::move(all);
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

struct Rate {
  double wall = 0;  // queries per wall-clock second
  double cpu = 0;   // queries per CPU second of `clock`
};

// Queries per second of `pass` (which answers `count` queries), repeating
// the pass until `min_seconds` of wall time elapse.
template <class F>
Rate rate(F pass, int count, double min_seconds, clockid_t clock) {
  const Stopwatch watch(clock);
  int passes = 0;
  do {
    pass();
    ++passes;
  } while (watch.wall() < min_seconds);
  const double queries = passes * static_cast<double>(count);
  return {queries / watch.wall(), queries / watch.cpu()};
}

struct Curve {
  std::string index;
  std::vector<int> ef;
  std::vector<double> recall, qps1, qps1_wall, qpsn;
  // Highest one-thread q/s (per CPU second) at recall >= target, or 0.
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
  double build_seconds = 0;  // wall clock
  double build_cpu = 0;      // CPU seconds of all threads
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

// One-thread q/s (thread CPU time) of BruteForce, KdTree and Hnsw (default
// parameters) over a grid of n and d on Gaussian mixtures (n / 100
// clusters), 200 queries: the measurements behind make_index("auto").
void print_crossovers(int k, double min_time) {
  omp_set_num_threads(1);
  std::printf("## Crossovers: one thread, k = %d, Gaussian mixtures (n/100 clusters), 200 queries, "
              "q/s per CPU second; Hnsw at default parameters (ef 64), not built above n = 20,000\n\n"
              "| d | n | BruteForce q/s | KdTree q/s | Hnsw q/s | Hnsw build CPU s |\n"
              "|---:|---:|---:|---:|---:|---:|\n", k);
  for (int d : {2, 4, 8, 16, 32, 64, 256}) {
    for (int n : {1000, 5000, 20000, 100000}) {
      const RowMatrix all = ann::synthetic_mixture(n + 200, d, std::max(1, n / 100), 3);
      const RowMatrix points = all.topRows(n), queries = all.bottomRows(200);
      ann::BruteForce brute;
      brute.build(points);
      ann::KdTree tree;
      tree.build(points);
      auto qps = [&](const ann::Index& index) {
        return rate([&] { index.search(queries, k); }, 200, min_time, CLOCK_THREAD_CPUTIME_ID).cpu;
      };
      std::string hnsw_qps = "-", hnsw_build = "-";
      if (n <= 20000) {
        ann::Hnsw hnsw;
        const Stopwatch watch(CLOCK_THREAD_CPUTIME_ID);
        hnsw.build(points);
        hnsw_build = std::to_string(watch.cpu()).substr(0, 5);
        hnsw_qps = std::to_string(static_cast<long>(qps(hnsw)));
      }
      std::printf("| %d | %d | %.0f | %.0f | %s | %s |\n", d, n, qps(brute), qps(tree),
                  hnsw_qps.c_str(), hnsw_build.c_str());
      std::fflush(stdout);
    }
  }
}

void print_curves(const std::vector<Curve>& curves, int threads) {
  std::printf("\n| index | ef | recall@10 | q/s, 1 thread (CPU time) | q/s, 1 thread (wall) | "
              "q/s, %d threads (wall) |\n", threads);
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const Curve& c : curves)
    for (size_t i = 0; i < c.ef.size(); ++i) {
      const std::string ef = c.ef[i] > 0 ? std::to_string(c.ef[i]) : "-";
      std::printf("| %s | %s | %.4f | %.0f | %.0f | %.0f |\n", c.index.c_str(), ef.c_str(),
                  c.recall[i], c.qps1[i], c.qps1_wall[i], c.qpsn[i]);
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
      ("crossovers", "only measure BruteForce / KdTree / Hnsw over a grid of n and d (one thread)")
      ("only", "build just this index (brute, kdtree, hnsw, hnswlib, none), search once and exit: "
               "for peak RSS under /usr/bin/time -v", cxxopts::value<std::string>()->default_value(""))
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
  if (args.count("crossovers")) {
    print_crossovers(args["k"].as<int>(), args["min-time"].as<double>());
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
  omp_set_num_threads(threads);

  const std::string only = args["only"].as<std::string>();
  if (!only.empty()) {
    // One index (or none: the data alone), so that the process's peak RSS
    // minus that of "none" is the index's real footprint.
    size_t bytes = 0;
    if (only == "hnswlib") {
#ifdef NTP_HAVE_HNSWLIB
      hnswlib::L2Space space(d);
      HnswLib lib(&space, static_cast<size_t>(n), static_cast<size_t>(params.M),
                  static_cast<size_t>(params.ef_construction), params.seed);
#pragma omp parallel for schedule(dynamic, 64)
      for (int i = 0; i < n; ++i) lib.addPoint(data.points.row(i).data(), static_cast<size_t>(i));
      lib.setEf(static_cast<size_t>(params.ef));
      hnswlib_search(lib, queries, k);
      bytes = hnswlib_bytes(lib, threads);
#else
      std::cerr << "bench_ann: --only hnswlib, but this build has no hnswlib\n";
      return 2;
#endif
    } else if (only != "none") {
      std::unique_ptr<ann::Index> index;
      if (only == "hnsw")
        index = std::make_unique<ann::Hnsw>(params);
      else if (only == "brute" || only == "kdtree")
        index = ann::make_index(only, n, d);
      else {
        std::cerr << "bench_ann: --only must be brute, kdtree, hnsw, hnswlib or none; got \"" << only
                  << "\"\n";
        return 2;
      }
      index->build(data.points);
      index->search(queries, k);
      bytes = index->memory_bytes();
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::printf("%s: counted %.1f MB, process peak RSS %.1f MB\n", only.c_str(), mb(bytes),
                usage.ru_maxrss / 1e3);
    return 0;
  }
  std::printf("## %s\n\n%d queries from the same distribution, k = %d, M = %d, efConstruction = %d, "
              "%d threads for builds and batches; q/s are medians of %d timings.\n",
              data.description.c_str(), m, k, params.M, params.ef_construction, threads, repeats);
  std::fflush(stdout);

  std::vector<Built> built;

  // Builds. Brute force also gives the exact neighbours.
  ann::BruteForce brute;
  std::unique_ptr<Stopwatch> watch = std::make_unique<Stopwatch>();
  brute.build(data.points);
  built.push_back({"BruteForce", watch->wall(), watch->cpu(), 0});
  const ann::Neighbours truth = brute.search(queries, k);

  ann::Hnsw hnsw(params);
  watch = std::make_unique<Stopwatch>();
  hnsw.build(data.points);
  const double our_build = watch->wall(), our_build_cpu = watch->cpu();
  built.push_back({"ann::Hnsw", our_build, our_build_cpu, 0});
  hnsw.check_integrity();

#ifdef NTP_HAVE_HNSWLIB
  std::unique_ptr<hnswlib::L2Space> space;
  std::unique_ptr<HnswLib> lib;
  if (!skipped("hnswlib")) {
    space = std::make_unique<hnswlib::L2Space>(d);
    watch = std::make_unique<Stopwatch>();
    lib = std::make_unique<HnswLib>(space.get(), static_cast<size_t>(n), static_cast<size_t>(params.M),
                                    static_cast<size_t>(params.ef_construction), params.seed);
#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < n; ++i) lib->addPoint(data.points.row(i).data(), static_cast<size_t>(i));
    built.push_back({"hnswlib", watch->wall(), watch->cpu(), 0});
  }
#endif

  ann::KdTree tree;
  if (!skipped("kdtree")) {
    watch = std::make_unique<Stopwatch>();
    tree.build(data.points);
    built.push_back({"KdTree", watch->wall(), watch->cpu(), 0});
  }

  // Query curves: one row per (index, ef). Timings go round all rows once
  // per repeat, so that a slow spell of this shared machine hits every
  // index alike; the median over repeats is reported.
  struct Row {
    std::string index;
    int ef;  // 0: exact index
    std::function<void(const RowMatrix&)> run;
    int timing_queries;
  };
  std::vector<Row> rows;
  if (!skipped("brute"))
    rows.push_back({"BruteForce", 0, [&](const RowMatrix& q) { brute.search(q, k); }, m});
  for (int ef : efs)
    rows.push_back({"ann::Hnsw", ef, [&, ef](const RowMatrix& q) { hnsw.search(q, k, ef); }, m});
#ifdef NTP_HAVE_HNSWLIB
  if (lib)
    for (int ef : efs)
      rows.push_back({"hnswlib", ef, [&, ef](const RowMatrix& q) {
                        lib->setEf(static_cast<size_t>(ef));
                        hnswlib_search(*lib, q, k);
                      }, m});
#endif
  // The k-d tree is slow above ~10 dimensions: time it on at most 200 queries.
  if (!skipped("kdtree"))
    rows.push_back({"KdTree", 0, [&](const RowMatrix& q) { tree.search(q, k); }, std::min(m, 200)});

  std::vector<Curve> curves;
  // One thread: CPU time of the calling thread (idle OpenMP workers spin and
  // would be counted by the process clock). All threads: wall clock.
  std::vector<std::vector<double>> times1(rows.size()), times1_wall(rows.size()), timesn(rows.size());
  for (const Row& row : rows) {
    if (curves.empty() || curves.back().index != row.index) curves.push_back({row.index, {}, {}, {}, {}, {}});
    curves.back().ef.push_back(row.ef);
    double recall = 1.0;
    if (row.index == "ann::Hnsw") recall = ann::recall_at_k(hnsw.search(queries, k, row.ef), truth, k);
#ifdef NTP_HAVE_HNSWLIB
    if (row.index == "hnswlib") {
      lib->setEf(static_cast<size_t>(row.ef));
      recall = ann::recall_at_k(hnswlib_search(*lib, queries, k), truth, k);
    }
#endif
    curves.back().recall.push_back(recall);
  }
  for (int r = 0; r < repeats; ++r) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const RowMatrix q = queries.topRows(rows[i].timing_queries);
      auto pass = [&] { rows[i].run(q); };
      omp_set_num_threads(1);
      const Rate one = rate(pass, rows[i].timing_queries, min_time, CLOCK_THREAD_CPUTIME_ID);
      times1[i].push_back(one.cpu);
      times1_wall[i].push_back(one.wall);
      omp_set_num_threads(threads);
      timesn[i].push_back(rate(pass, rows[i].timing_queries, min_time, CLOCK_PROCESS_CPUTIME_ID).wall);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (size_t i = 0, c = 0; i < rows.size(); ++i) {
    if (curves[c].index != rows[i].index) ++c;
    curves[c].qps1.push_back(median(times1[i]));
    curves[c].qps1_wall.push_back(median(times1_wall[i]));
    curves[c].qpsn.push_back(median(timesn[i]));
  }

  // Memory after the searches, so that per-thread visited sets are counted.
  for (Built& b : built) {
    if (b.index == "BruteForce") b.bytes = brute.memory_bytes();
    if (b.index == "ann::Hnsw") b.bytes = hnsw.memory_bytes();
    if (b.index == "KdTree") b.bytes = tree.memory_bytes();
#ifdef NTP_HAVE_HNSWLIB
    if (b.index == "hnswlib") b.bytes = hnswlib_bytes(*lib, threads);
#endif
  }

  std::printf("\n| index | build s (wall) | build CPU s | memory MB | bytes/point |\n"
              "|---|---:|---:|---:|---:|\n");
  for (const Built& b : built)
    std::printf("| %s | %.2f | %.2f | %.1f | %.0f |\n", b.index.c_str(), b.build_seconds, b.build_cpu,
                mb(b.bytes), static_cast<double>(b.bytes) / n);
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
    const Built& ob = built[1];  // ann::Hnsw
    const Built& tb = built[2];  // hnswlib
    std::printf("\nAt recall@10 >= 0.95, one thread, per CPU second: ann::Hnsw %.0f q/s (ef %d), "
                "hnswlib %.0f q/s (ef %d): q/s ratio %.2f (target >= 1.0). Build CPU %.2f s vs "
                "%.2f s: ratio %.2f, wall %.2f s vs %.2f s: ratio %.2f (target <= 1.0). Memory "
                "%.1f MB vs %.1f MB: ratio %.2f (target <= 1.1).\n",
                a, our_ef, b, their_ef, b > 0 ? a / b : 0.0, ob.build_cpu, tb.build_cpu,
                ob.build_cpu / tb.build_cpu, ob.build_seconds, tb.build_seconds,
                ob.build_seconds / tb.build_seconds, mb(ob.bytes), mb(tb.bytes),
                static_cast<double>(ob.bytes) / tb.bytes);
  }
  std::fflush(stdout);

  if (!skipped("update")) {
    // Moves are cumulative: each fraction starts from the previous state.
    const int probe_ef = params.ef;
    std::printf("\nMoving rows (each relocated next to another random row), cumulative; "
                "recall@10 at ef = %d after each step; times are CPU seconds (wall in "
                "brackets); the fresh ann::Hnsw build took %.2f CPU s (%.2f s wall).\n\n",
                probe_ef, our_build_cpu, our_build);
    std::printf("| rows moved | ann::Hnsw CPU s | vs fresh build | recall@10 | hnswlib CPU s | "
                "hnswlib recall@10 |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|\n");
    uint64_t seed = 1000;
    for (double fraction : parse_doubles(args["update"].as<std::string>())) {
      const int count = std::max(1, static_cast<int>(fraction * n + 0.5));
      const auto [ids, to] = moves(hnsw.points(), count, seed++);
      watch = std::make_unique<Stopwatch>();
      hnsw.update(ids, to);
      const double cpu = watch->cpu(), wall = watch->wall();
      hnsw.check_integrity();
      brute.update(ids, to);
      const ann::Neighbours now = brute.search(queries, k);
      const double recall = ann::recall_at_k(hnsw.search(queries, k, probe_ef), now, k);
      std::string lib_seconds = "-", lib_recall = "-";
#ifdef NTP_HAVE_HNSWLIB
      if (lib && fraction <= args["hnswlib-update-max"].as<double>() + 1e-12) {
        watch = std::make_unique<Stopwatch>();
#pragma omp parallel for schedule(dynamic, 16)
        for (int i = 0; i < count; ++i) lib->addPoint(to.row(i).data(), static_cast<size_t>(ids[i]));
        char buffer[64];
        std::snprintf(buffer, sizeof(buffer), "%.2f (%.2f)", watch->cpu(), watch->wall());
        lib_seconds = buffer;
        lib->setEf(static_cast<size_t>(probe_ef));
        std::snprintf(buffer, sizeof(buffer), "%.4f",
                      ann::recall_at_k(hnswlib_search(*lib, queries, k), now, k));
        lib_recall = buffer;
      }
#endif
      std::printf("| %d (%.0f%%) | %.2f (%.2f) | %.2fx | %.4f | %s | %s |\n", count, 100 * fraction,
                  cpu, wall, cpu / our_build_cpu, recall, lib_seconds.c_str(), lib_recall.c_str());
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
