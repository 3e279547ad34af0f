// ntp/prover/prover.cpp: symbolic proof search (see prover.h, phase 1). One
// or-expansion, breadth first; a policy (search_policy.h) says which states
// it grows and keeps: every path, or each goal's best by branch and bound.
// The finished paths are then laid out as a ProofBatch, the one place their
// comparisons are numbered. Scoring is in scoring.cpp.
#include "ntp/prover/prover.h"

#include "ntp/prover/proof_state.h"
#include "ntp/prover/rule_selection.h"
#include "ntp/prover/search_policy.h"

#include <algorithm>
#include <exception>
#include <iterator>
#include <map>
#include <omp.h>
#include <stdexcept>
#include <unordered_map>

namespace ntp {

namespace {

// What a search reads: the model, its fact index and the search settings.
struct SearchSpace {
  const Model& model;
  FactIndex& facts;
  const ProverConfig& config;
};

// The rules an `or` step tries for an atom, selected once per (predicate
// row, arity) and then reused.
class RuleCache {
 public:
  RuleCache(const Model& model, int k) : model_(model), k_(k) {}
  const std::vector<int>& rules_for(const PendingAtom& atom) {
    const int arity = static_cast<int>(atom.args.size());
    const long long key = static_cast<long long>(atom.predicate_row) * 1024 + arity;  // arity < 1024
    auto it = rules_.find(key);
    if (it == rules_.end()) it = rules_.emplace(key, nearest_rules(model_, atom.predicate_row, arity, k_)).first;
    return it->second;
  }

 private:
  const Model& model_;
  int k_;
  std::unordered_map<long long, std::vector<int>> rules_;
};

// The facts each live state's first pending atom is tried against. States
// asking in the same pattern share one batched index search.
std::vector<std::vector<int>> facts_to_try(const SearchSpace& space, const std::vector<State>& live,
                                           const std::vector<Goal>& goals) {
  std::map<std::vector<int>, std::vector<std::size_t>> by_pattern;  // states asking alike
  std::vector<FactQuery> queries(live.size());
  for (std::size_t i = 0; i < live.size(); ++i) {
    const State& s = live[i];
    const Atom ground = resolved_atom(s, s.stack.front());
    queries[i] = {ground.predicate, ground.args, goals[static_cast<std::size_t>(s.goal)].masked};
    by_pattern[pattern_key(queries[i])].push_back(i);
  }
  std::vector<std::vector<int>> facts_of(live.size());
  for (const auto& [key, members] : by_pattern) {
    std::vector<FactQuery> batch;
    for (std::size_t i : members) batch.push_back(queries[i]);
    const bool open = key.size() - 1 < static_cast<std::size_t>(key[0]);  // an argument is unbound
    const ProverConfig& c = space.config;
    const int k = open && c.k_facts > 0 ? std::max(c.k_open, c.k_facts) : c.k_facts;
    std::vector<std::vector<int>> found = space.facts.nearest(batch, k);
    for (std::size_t j = 0; j < members.size(); ++j) facts_of[members[j]] = std::move(found[j]);
  }
  return facts_of;
}

// `or` on state s: its first pending atom proven by each of `facts`, then
// (while depth allows) by each selected rule; the policy gets every child.
template <class Policy>
void expand(const SearchSpace& space, RuleCache& rules, const State& s, const std::vector<int>& facts, Policy& policy) {
  if (!policy.worth_expanding(s)) return;
  const PendingAtom& atom = s.stack.front();
  const int depth = space.config.depth - atom.depth_left;
  for (int f : facts) {
    if (!policy.worth_trying(s, space.model.kb.facts[static_cast<std::size_t>(f)])) continue;
    policy.keep(apply_fact(space.model, s, f), {atom, false, f, depth, s.comparisons.size()});
  }
  if (atom.depth_left == 0) return;
  for (int r : rules.rules_for(atom))
    policy.keep(apply_rule(space.model, s, r), {atom, true, r, depth, s.comparisons.size()});
}

// Breadth-first or/and over a chunk of goals: each round grows every live
// state by one `or` step, until no state is left. Returns each goal's
// finished states (the policy's choice of them).
template <class Policy>
std::vector<std::vector<State>> search_with(const SearchSpace& space, const std::vector<Goal>& goals, Policy& policy) {
  std::vector<State> live;
  for (std::size_t g = 0; g < goals.size(); ++g) live.push_back(start_state(goals[g], static_cast<int>(g), space.config.depth));
  RuleCache rules(space.model, space.config.k_rules);
  while (!live.empty()) {
    const std::vector<std::vector<int>> facts = facts_to_try(space, live, goals);
    for (std::size_t i = 0; i < live.size(); ++i) expand(space, rules, live[i], facts[i], policy);
    live = policy.next_round();
  }
  return policy.take_done();
}

// Packs a comparison into one integer, for hashing (rows < 2^31).
unsigned long long comparison_key(const Comparison& c) {
  return (static_cast<unsigned long long>(c.table) << 62) | (static_cast<unsigned long long>(c.a) << 31) |
         static_cast<unsigned long long>(c.b);
}

// The finished states as proof paths, goal by goal, with the distinct
// comparisons numbered in order of first use.
ProofBatch lay_out(std::vector<std::vector<State>> done) {
  ProofBatch batch;
  std::unordered_map<unsigned long long, int> ids;
  for (std::vector<State>& finished : done) {
    batch.path_counts.push_back(static_cast<ad::Index>(finished.size()));
    for (State& s : finished) {
      ProofPath path;
      for (const Comparison& c : s.comparisons) {
        auto [it, added] = ids.emplace(comparison_key(c), static_cast<int>(batch.comparisons.size()));
        if (added) batch.comparisons.push_back(c);
        path.comparisons.push_back(it->second);
      }
      path.steps = std::move(s.steps);
      batch.paths.push_back(std::move(path));
    }
  }
  return batch;
}

// search_chunk (goals -> each goal's finished states) over the goals:
// goals are independent, so one contiguous chunk per thread; small batches
// stay on one thread. The chunks' results are joined in goal order.
template <class SearchChunk>
std::vector<std::vector<State>> in_chunks(const std::vector<Goal>& goals, SearchChunk search_chunk) {
  constexpr std::size_t kMinGoalsPerChunk = 16;
  const int threads = omp_get_max_threads();
  if (threads < 2 || goals.size() < 2 * kMinGoalsPerChunk) return search_chunk(goals);
  const std::size_t chunks = std::min(static_cast<std::size_t>(threads), goals.size() / kMinGoalsPerChunk);
  std::vector<std::vector<std::vector<State>>> parts(chunks);
  std::vector<std::exception_ptr> errors(chunks);  // an exception must not leave an OpenMP region
#pragma omp parallel for schedule(static, 1)
  for (std::size_t c = 0; c < chunks; ++c) {
    const auto begin = goals.begin() + static_cast<std::ptrdiff_t>(goals.size() * c / chunks);
    const auto end = goals.begin() + static_cast<std::ptrdiff_t>(goals.size() * (c + 1) / chunks);
    try {
      parts[c] = search_chunk(std::vector<Goal>(begin, end));
    } catch (...) {
      errors[c] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<std::vector<State>> done;
  for (auto& part : parts) std::move(part.begin(), part.end(), std::back_inserter(done));
  return done;
}

}  // namespace

Prover::Prover(const Model& model, FactIndex& facts, ProverConfig config)
    : model_(model), facts_(facts), config_(std::move(config)) {
  if (config_.depth < 0) throw std::invalid_argument("proof depth must be >= 0");
}

ProofBatch Prover::search(const std::vector<Goal>& goals, bool explain) const {
  const SearchSpace space{model_, facts_, config_};
  if (explain) {  // every path, with its steps, on one thread
    KeepPaths policy(goals.size(), true);
    return lay_out(search_with(space, goals, policy));
  }
  if (config_.k_facts > 0)
    return lay_out(in_chunks(goals, [&](const std::vector<Goal>& chunk) {
      KeepPaths policy(chunk.size(), false);
      return search_with(space, chunk, policy);
    }));
  const KernelTables kernels(model_);  // computed once, read by every chunk
  return lay_out(in_chunks(goals, [&](const std::vector<Goal>& chunk) {
    BestProof policy(chunk.size(), kernels);
    return search_with(space, chunk, policy);
  }));
}

}  // namespace ntp
