// tools/bench_reasoner.cpp: a Reasoner serving queries, as a program that
// embeds one does: the model loaded once, then ground atoms proven one after
// another (latency per atom: median, p90, p99) and from several threads at
// once (queries per second against one thread). OpenMP runs one thread per
// call, so the threads are the only parallelism.
//
//   bench_reasoner --model wn11.model --atoms test.tsv [--count 2000] [--threads 8]
//
// --atoms reads `s<TAB>p<TAB>o[<TAB>label]` lines (the gntp TSV) or atoms
// `p(s, o)`, one per line.
#include "ntp/ntp.h"

#include <cxxopts.hpp>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Up to `count` atoms as text, from a TSV of triples or a file of atoms.
std::vector<std::string> read_atoms(const std::string& path, std::size_t count) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<std::string> atoms;
  for (std::string line; atoms.size() < count && std::getline(in, line);) {
    if (line.empty() || line[0] == '%') continue;
    const std::size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    if (tab1 == std::string::npos || tab2 == std::string::npos) {
      atoms.push_back(line.substr(0, line.find_last_of(')') + 1));
      continue;
    }
    const std::size_t tab3 = line.find('\t', tab2 + 1);
    atoms.push_back(line.substr(tab1 + 1, tab2 - tab1 - 1) + "(" + line.substr(0, tab1) + ", " +
                    line.substr(tab2 + 1, tab3 == std::string::npos ? std::string::npos : tab3 - tab2 - 1) + ")");
  }
  return atoms;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// Proves every atom once on each of `threads` threads (each its own order of
// the same atoms); returns the queries per second of all threads together.
double throughput(const ntp::Reasoner& reasoner, const std::vector<std::string>& atoms, int threads, int top) {
  std::atomic<std::size_t> next{0};
  const std::size_t total = atoms.size() * static_cast<std::size_t>(threads);
  const auto start = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      omp_set_num_threads(1);  // OpenMP's thread count is per thread: each starts with all cores
      for (std::size_t i = next++; i < total; i = next++) reasoner.prove(atoms[i % atoms.size()], top);
    });
  for (std::thread& th : pool) th.join();
  return static_cast<double>(total) / (ms_since(start) / 1000.0);
}

}  // namespace

int main(int argc, char** argv) {
  cxxopts::Options options("bench_reasoner", "A Reasoner serving ground atoms: latency and throughput");
  options.add_options()
      ("model", "model file", cxxopts::value<std::string>())
      ("atoms", "ground atoms: a TSV of triples or atoms p(s, o), one per line", cxxopts::value<std::string>())
      ("count", "atoms to prove", cxxopts::value<std::size_t>()->default_value("2000"))
      ("threads", "threads for the throughput run", cxxopts::value<int>()->default_value("8"))
      ("top", "proofs explained per atom", cxxopts::value<int>()->default_value("1"))
      ("index", "fact index (default: the model's)", cxxopts::value<std::string>()->default_value(""))
      ("h,help", "print this help");
  const auto r = options.parse(argc, argv);
  if (r.count("help") || !r.count("model") || !r.count("atoms")) {
    std::cout << options.help() << "\n";
    return r.count("help") ? 0 : 2;
  }
  omp_set_num_threads(1);
  std::printf("%s\n", ntp::build_line().c_str());
  auto start = Clock::now();
  ntp::SearchOptions search;
  search.index = r["index"].as<std::string>();
  const ntp::Reasoner reasoner = ntp::Reasoner::load(r["model"].as<std::string>(), search);
  std::printf("load (model and fact index): %.1f ms\n", ms_since(start));
  const std::vector<std::string> atoms = read_atoms(r["atoms"].as<std::string>(), r["count"].as<std::size_t>());
  const int top = r["top"].as<int>();
  std::vector<double> latency;
  for (const std::string& atom : atoms) {
    start = Clock::now();
    reasoner.prove(atom, top);
    latency.push_back(ms_since(start));
  }
  std::printf("prove, one thread, %zu atoms: median %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n", atoms.size(),
              percentile(latency, 0.5), percentile(latency, 0.9), percentile(latency, 0.99), percentile(latency, 1.0));
  const int threads = r["threads"].as<int>();
  const double one = throughput(reasoner, atoms, 1, top), many = throughput(reasoner, atoms, threads, top);
  std::printf("throughput: 1 thread %.0f q/s, %d threads %.0f q/s (%.2fx) on %u cores\n", one, threads, many, many / one,
              std::thread::hardware_concurrency());
  return 0;
}
