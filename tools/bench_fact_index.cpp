// tools/bench_fact_index.cpp: the fact indices on a trained model, side by
// side: build time, queries per second and recall@1 against exact search.
//
// Queries are drawn as training asks them: for random training facts
// p(s, o), the fact itself (masked, as when it is proven), a corruption
// p(s, o') or p(s', o), and the body q_r(o, s) of every rule head, under each
// rule's body predicate row. Every index answers the same queries, grouped
// by pattern, as the prover batches a training step's queries. `--explain N` prints
// the first N queries where the approximate index misses the exact answer.
// `--moved-from EARLIER` measures freshness instead: HNSW graphs built on an
// earlier model's constants, moved to the later model's in place, relinked,
// or built afresh.
#include "ntp/index/fact_index.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/index/recall.h"

#include <cxxopts.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<ntp::FactQuery> training_queries(const ntp::Model& m, int goals, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ntp::FactQuery> out;
  const std::uint64_t num_constants = static_cast<std::uint64_t>(m.kb.constants.size());
  for (int i = 0; i < goals; ++i) {
    const int f = static_cast<int>(rng() % m.kb.facts.size());
    ntp::Atom atom = m.kb.facts[static_cast<std::size_t>(f)];
    int masked = f;
    if (i % 3 != 0) {  // two corruptions for each fact, as training's default
      atom.args[i % 3 == 1 ? 0 : atom.args.size() - 1] = static_cast<int>(rng() % num_constants);
      masked = -1;
    }
    out.push_back({atom.predicate, atom.args, masked});
    if (atom.args.size() != 2) continue;
    for (const ntp::Rule& r : m.rules)
      for (const ntp::RuleAtom& body : r.body)
        out.push_back({body.predicate.id, {atom.args[1], atom.args[0]}, masked});
  }
  return out;
}

std::string describe(const ntp::Model& m, const ntp::FactQuery& q, int fact) {
  std::ostringstream s;
  s << ntp::to_string(m.kb, m.kb.facts[static_cast<std::size_t>(fact)]) << " at " << ntp::key_distance(m, q, fact);
  return s.str();
}

double queries_per_second(ntp::FactIndex& index, const std::vector<std::vector<ntp::FactQuery>>& rounds) {
  const auto t = Clock::now();
  std::size_t count = 0;
  for (const auto& batch : rounds) {
    index.nearest(batch, 1);
    count += batch.size();
  }
  return static_cast<double>(count) / seconds_since(t);
}

// HNSW indices built on `earlier`'s constants, then told that every constant
// moved to `m`'s: written in place and never relinked, or relinked (which,
// all rows having moved, rebuilds), against one built fresh on `m`.
int compare_freshness(ntp::Model& m, const ntp::Model& earlier, ntp::FactIndexOptions options,
                      const std::vector<ntp::FactQuery>& queries, const std::vector<std::vector<ntp::FactQuery>>& rounds,
                      ntp::FactIndex& exact) {
  if (earlier.constants.value.rows() != m.constants.value.rows() || earlier.dim != m.dim)
    throw std::invalid_argument("--moved-from: the two models' constant tables differ in shape");
  const ad::Matrix now = m.constants.value;
  ntp::MovedRows all;
  for (int c = 0; c < now.rows(); ++c) all.constants.push_back(c);
  std::printf("| graph | maintenance s | queries/s | recall@1 |\n|---|---|---|---|\n");
  for (const char* policy : {"moved in place, never relinked", "relinked", "fresh"}) {
    ntp::FactIndexOptions o = options;
    o.update_every = std::string(policy) == "relinked" ? 1 : 1000000000;
    m.constants.value = earlier.constants.value;
    std::unique_ptr<ntp::FactIndex> index;
    if (std::string(policy) != "fresh") index = ntp::make_fact_index(m, "hnsw", o);
    m.constants.value = now;
    const auto t = Clock::now();
    if (index) index->embeddings_moved(all);
    else index = ntp::make_fact_index(m, "hnsw", o);
    const double maintenance = seconds_since(t);
    const double qps = queries_per_second(*index, rounds);
    std::printf("| %s | %.2f | %.0f | %.4f |\n", policy, maintenance, qps, ntp::recall_at_k(*index, exact, queries, 1));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cxxopts::Options options("bench_fact_index", "Fact indices on a trained model: build, q/s, recall@1");
  options.add_options()
      ("model", "model file", cxxopts::value<std::string>())
      ("goals", "training-like goals to draw queries from", cxxopts::value<int>()->default_value("300"))
      ("kinds", "indices to compare, against brute", cxxopts::value<std::vector<std::string>>()->default_value("hnsw"))
      ("explain", "print this many misses of the first approximate index", cxxopts::value<int>()->default_value("0"))
      ("no-recall", "skip the exact searches (profiling)")
      ("neighbours", "ANN look-up: constants per goal constant at first", cxxopts::value<int>()->default_value("4"))
      ("max-neighbours", "ANN look-up: widest", cxxopts::value<int>()->default_value("16"))
      ("beam-per-neighbour", "HNSW look-up: search beam per constant asked",
       cxxopts::value<int>()->default_value(std::to_string(ntp::FactIndexOptions{}.beam_per_neighbour)))
      ("moved-from", "freshness: build the ANN indices on this (earlier) model's embeddings, then move every "
       "constant to --model's and compare: moved in place, relinked, fresh", cxxopts::value<std::string>())
      ("seed", "query seed", cxxopts::value<unsigned long long>()->default_value("1"))
      ("h,help", "show this help");
  const auto r = options.parse(argc, argv);
  if (r.count("help") || !r.count("model")) {
    std::cout << options.help() << std::endl;
    return r.count("help") ? 0 : 2;
  }
  ntp::Model m = ntp::load_model(r["model"].as<std::string>());
  ntp::FactIndexOptions index_options;
  index_options.neighbours = r["neighbours"].as<int>();
  index_options.max_neighbours = r["max-neighbours"].as<int>();
  index_options.beam_per_neighbour = r["beam-per-neighbour"].as<int>();
  const auto queries = training_queries(m, r["goals"].as<int>(), r["seed"].as<unsigned long long>());
  const auto exact = ntp::make_fact_index(m, "brute");
  // As the prover asks: a training step's 30 goals at once, their facts in
  // one call, then their rule bodies in another.
  std::vector<std::vector<ntp::FactQuery>> rounds;
  const std::size_t per_goal = 1 + (queries.size() - 1) / static_cast<std::size_t>(r["goals"].as<int>());
  for (std::size_t begin = 0; begin < queries.size(); begin += 30 * per_goal) {
    std::vector<ntp::FactQuery> facts, bodies;
    for (std::size_t q = begin; q < std::min(queries.size(), begin + 30 * per_goal); ++q)
      ((q - begin) % per_goal == 0 ? facts : bodies).push_back(queries[q]);
    rounds.push_back(std::move(facts));
    if (!bodies.empty()) rounds.push_back(std::move(bodies));
  }
  std::printf("%zu queries from %d goals; %d facts, %d constants, dim %d\n", queries.size(), r["goals"].as<int>(),
              static_cast<int>(m.kb.facts.size()), m.kb.constants.size(), m.dim);
  std::printf("| index | build s | queries/s | recall@1 |\n|---|---|---|---|\n");
  int explain = r["explain"].as<int>();
  if (r.count("moved-from")) return compare_freshness(m, ntp::load_model(r["moved-from"].as<std::string>()), index_options, queries, rounds, *exact);
  for (const std::string& kind : r["kinds"].as<std::vector<std::string>>()) {
    auto t = Clock::now();
    const auto index = ntp::make_fact_index(m, kind, index_options);
    const double build = seconds_since(t);
    const double qps = queries_per_second(*index, rounds);
    const double recall = r.count("no-recall") ? -1.0 : ntp::recall_at_k(*index, *exact, queries, 1);
    std::printf("| %s | %.2f | %.0f | %.4f |\n", kind.c_str(), build, qps, recall);
    for (const auto& q : queries) {
      if (explain <= 0 || index->exact()) break;
      const int got = index->nearest({q}, 1)[0][0], want = exact->nearest({q}, 1)[0][0];
      if (ntp::key_distance(m, q, got) <= ntp::key_distance(m, q, want) * (1 + 1e-5)) continue;
      --explain;
      std::printf("query %s(%s, %s): index %s; exact %s\n", m.predicate_row_name(q.predicate_row).c_str(),
                  m.kb.constants.name(q.args[0]).c_str(), m.kb.constants.name(q.args[1]).c_str(),
                  describe(m, q, got).c_str(), describe(m, q, want).c_str());
    }
  }
  return 0;
}
