// ntp/index/constant_index.cpp: fact search per constant tuple and predicate group
// (see constant_index.h).
#include "ntp/index/constant_index.h"

#include "ann/hnsw.h"
#include "ann/kd_tree.h"
#include "ann/top_k.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace ntp {

namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
// Steps between relinking the moved constants of an HNSW graph, unless
// FactIndexOptions::update_every says otherwise (docs/RESULTS.md measures
// the choice on WN11).
constexpr int kDefaultRelinkEvery = 10000;

float squared_distance(const ann::RowMatrix& points, int a, int b) {
  return (points.row(a) - points.row(b)).squaredNorm();
}

}  // namespace

ConstantIndex::Adjacency ConstantIndex::make_adjacency(const std::vector<int>& facts, int position, int num_constants) const {
  Adjacency adj;
  adj.offsets.assign(static_cast<std::size_t>(num_constants) + 1, 0);
  auto constant_of = [&](int f) {
    return static_cast<std::size_t>(model_.kb.facts[static_cast<std::size_t>(f)].args[static_cast<std::size_t>(position)]);
  };
  for (int f : facts) ++adj.offsets[constant_of(f) + 1];
  for (std::size_t c = 0; c + 1 < adj.offsets.size(); ++c) adj.offsets[c + 1] += adj.offsets[c];
  adj.facts.resize(facts.size());
  std::vector<int> next(adj.offsets.begin(), adj.offsets.end() - 1);
  for (int f : facts) adj.facts[static_cast<std::size_t>(next[constant_of(f)]++)] = f;  // fact ids stay ascending
  return adj;
}

// One constant tuple's search: per-thread scratch and the steps of it.
struct ConstantIndex::TupleSearch {
  const ConstantIndex& index;
  const std::vector<int>& ground;  // argument positions compared
  int arity;
  int want;
  std::vector<ann::TopK> groups;                  // (P): facts of each KB predicate, smallest cd first
  std::vector<std::vector<ann::Scored>> sorted;   // (P): the same, sorted
  Eigen::VectorXf distances;                      // Scan: (C) d(θ_tuple[i], θ_c) for one position

  TupleSearch(const ConstantIndex& idx, const std::vector<int>& g, int a, int w)
      : index(idx), ground(g), arity(a), want(w), groups(static_cast<std::size_t>(idx.model_.num_kb_predicates)),
        sorted(groups.size()) {}

  void reset_groups() {
    for (ann::TopK& g : groups) g.reset(want);
  }
  void push(int fact, float cd) {
    groups[static_cast<std::size_t>(index.model_.kb.facts[static_cast<std::size_t>(fact)].predicate)].push(cd, fact);
  }

  // Exact: every fact of the arity, cd summed from one distance vector per position.
  void scan(const std::vector<int>& tuple) {
    const std::vector<int>& facts = index.facts_of_arity(arity);
    std::vector<float> cd(facts.size(), 0.0f);
    for (std::size_t i = 0; i < ground.size(); ++i) {
      const int c = tuple[i];
      // d(a, c) for every constant a, as differences (not |a|² + |c|² - 2 a·c,
      // which rounds near-ties differently from the candidates' distances).
      distances = (index.points_.rowwise() - index.points_.row(c)).rowwise().squaredNorm();
      const std::size_t position = static_cast<std::size_t>(ground[i]);
      for (std::size_t j = 0; j < facts.size(); ++j) {
        const int arg = index.model_.kb.facts[static_cast<std::size_t>(facts[j])].args[position];
        cd[j] += distances[arg];
      }
    }
    for (std::size_t j = 0; j < facts.size(); ++j) push(facts[j], cd[j]);
  }

  // Scores the candidates: the facts holding one of near[i]'s constants at
  // ground position i, each once (its cd term at i is the neighbour's known
  // distance). Returns the bound Σ_i r_i on the cd of every other fact.
  float candidates_near(const std::vector<int>& tuple, const std::vector<const Neighbourhood*>& near) {
    // Per-thread marks, kept across calls: stamps only grow, so an old mark
    // never equals a new stamp.
    thread_local std::vector<unsigned> seen;
    thread_local unsigned stamp = 0;
    if (seen.size() < index.model_.kb.facts.size()) seen.resize(index.model_.kb.facts.size(), 0u);
    if (++stamp == 0) {  // wrapped: forget every mark
      std::fill(seen.begin(), seen.end(), 0u);
      stamp = 1;
    }
    float bound = 0;
    for (std::size_t i = 0; i < ground.size(); ++i) {
      const Adjacency& adj = index.adjacency(arity, ground[i]);
      for (std::size_t n = 0; n < near[i]->constants.size(); ++n) {
        const int c = near[i]->constants[n];
        for (int j = adj.offsets[static_cast<std::size_t>(c)]; j < adj.offsets[static_cast<std::size_t>(c) + 1]; ++j) {
          const int f = adj.facts[static_cast<std::size_t>(j)];
          if (seen[static_cast<std::size_t>(f)] == stamp) continue;
          seen[static_cast<std::size_t>(f)] = stamp;
          const Atom& fact = index.model_.kb.facts[static_cast<std::size_t>(f)];
          float cd = near[i]->distances[n];
          for (std::size_t other = 0; other < ground.size(); ++other)
            if (other != i) cd += squared_distance(index.points_, tuple[other], fact.args[static_cast<std::size_t>(ground[other])]);
          push(f, cd);
        }
      }
      bound += near[i]->radius;
    }
    return bound;
  }
};

ConstantIndex::Neighbourhood ConstantIndex::neighbourhood(int c, int m) const {
  const ann::Neighbours nb = graph_->search(points_.row(c), m);
  Neighbourhood near;
  // c itself comes first, whatever the graph found: the facts that share the
  // goal's own constants are the likeliest answers, and a graph search can
  // miss a point when a few others sit near the centre of all (trained
  // embeddings that L2 shrank: every point's nearest neighbours are then the
  // same few hubs, and no link leads back to the point itself).
  near.constants.push_back(c);
  near.distances.push_back(0.0f);
  for (int other : nb.ids)
    if (other != c && static_cast<int>(near.constants.size()) < m) {
      near.constants.push_back(other);
      near.distances.push_back(squared_distance(points_, c, other));  // live: the graph may lag
    }
  // Fewer than m: the graph holds no more constants, so every fact is a candidate.
  near.radius = nb.k < m ? kInfinity : *std::max_element(near.distances.begin(), near.distances.end());
  return near;
}

ConstantIndex::ConstantIndex(const Model& model, Lookup lookup, const FactIndexOptions& options)
    : FactIndex(model), lookup_(lookup), options_(options),
      update_every_(options.update_every > 0 ? options.update_every : kDefaultRelinkEvery) {
  if (options_.neighbours < 1 || options_.max_neighbours < options_.neighbours || options_.update_every < 0)
    throw std::invalid_argument("fact index: need 1 <= neighbours <= max_neighbours and update_every >= 0, got " +
                                std::to_string(options_.neighbours) + ", " + std::to_string(options_.max_neighbours) +
                                ", " + std::to_string(options_.update_every));
  const int num_constants = static_cast<int>(model.constants.value.rows());
  std::size_t max_arity = 0;
  for (const Atom& f : model.kb.facts) max_arity = std::max(max_arity, f.args.size());
  adjacency_.resize(max_arity + 1);
  for (std::size_t arity = 1; arity <= max_arity; ++arity)
    for (std::size_t i = 0; i < arity; ++i)
      adjacency_[arity].push_back(make_adjacency(facts_of_arity(static_cast<int>(arity)), static_cast<int>(i), num_constants));
  all_moved();
}

ConstantIndex::~ConstantIndex() = default;

std::string ConstantIndex::name() const {
  switch (lookup_) {
    case Lookup::Scan: return "brute";
    case Lookup::KdTree: return "kdtree";
    case Lookup::Hnsw: return "hnsw";
  }
  return "?";
}

const ConstantIndex::Adjacency& ConstantIndex::adjacency(int arity, int position) const {
  return adjacency_[static_cast<std::size_t>(arity)][static_cast<std::size_t>(position)];
}

void ConstantIndex::copy_constant(int c) {
  points_.row(c) = model_.constants.value.row(c).cast<float>();
  norms_[c] = points_.row(c).squaredNorm();
}

void ConstantIndex::all_moved() {
  points_ = model_.constants.value.cast<float>();
  norms_ = points_.rowwise().squaredNorm();
  pending_.clear();
  is_pending_.assign(static_cast<std::size_t>(points_.rows()), 0);
  steps_since_update_ = 0;
  rebuild_graph();
}

void ConstantIndex::rebuild_graph() {
  graph_.reset();
  if (lookup_ == Lookup::Scan || points_.rows() == 0) return;
  if (lookup_ == Lookup::Hnsw) {
    ann::HnswParams params;
    // Training shrinks frequent constants towards the origin (L2 on every
    // touch), where they are near everything: without the pruned links the
    // graph of a trained WN11 model leaves 98% of its nodes unreachable.
    params.keep_pruned = true;
    graph_ = std::make_unique<ann::Hnsw>(params);
  }
  else graph_ = std::make_unique<ann::KdTree>();
  graph_->build(points_);
}

void ConstantIndex::apply_moved(const MovedRows& rows) {
  if (rows.constants.empty()) return;
  for (int c : rows.constants) copy_constant(c);
  if (!graph_) return;
  // Moved points are written into the graph at once (for an HNSW graph, in
  // place: its links stay good while points drift a little) and relinked
  // every update_every steps.
  ann::RowMatrix moved(static_cast<Eigen::Index>(rows.constants.size()), points_.cols());
  for (std::size_t i = 0; i < rows.constants.size(); ++i) moved.row(static_cast<Eigen::Index>(i)) = points_.row(rows.constants[i]);
  graph_->move_points(rows.constants, moved);
  if (lookup_ != Lookup::Hnsw) return;  // other structures were rebuilt by move_points
  for (int c : rows.constants)
    if (!is_pending_[static_cast<std::size_t>(c)]) {
      is_pending_[static_cast<std::size_t>(c)] = 1;
      pending_.push_back(c);
    }
  if (++steps_since_update_ < update_every_) return;
  steps_since_update_ = 0;
  moved.resize(static_cast<Eigen::Index>(pending_.size()), points_.cols());
  for (std::size_t i = 0; i < pending_.size(); ++i) moved.row(static_cast<Eigen::Index>(i)) = points_.row(pending_[i]);
  graph_->update(pending_, moved);
  count_relinked(static_cast<long long>(pending_.size()));
  for (int c : pending_) is_pending_[static_cast<std::size_t>(c)] = 0;
  pending_.clear();
}

std::vector<std::vector<int>> ConstantIndex::search(const std::vector<FactQuery>& queries, int want) {
  const std::vector<int> pattern = pattern_key(queries.front());
  const int arity = pattern[0];
  const std::vector<int> ground(pattern.begin() + 1, pattern.end());
  const int num_groups = model_.num_kb_predicates;

  // d(θ_p, θ_g) for each distinct query predicate row p and KB predicate g,
  // and its minimum over g (for certification).
  struct PredicateDistances {
    std::vector<float> to_group;  // (P)
    float nearest = kInfinity;
  };
  std::unordered_map<int, PredicateDistances> predicate_distances;
  for (const FactQuery& q : queries) {
    auto [it, added] = predicate_distances.try_emplace(q.predicate_row);
    if (!added) continue;
    for (int g = 0; g < num_groups; ++g) {
      const float d = static_cast<float>(
          (model_.predicates.value.row(q.predicate_row) - model_.predicates.value.row(g)).squaredNorm());
      it->second.to_group.push_back(d);
      it->second.nearest = std::min(it->second.nearest, d);
    }
  }
  // Queries sharing their constants at the ground positions share one search.
  std::map<std::vector<int>, std::vector<std::size_t>> by_tuple;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    std::vector<int> tuple;
    for (int i : ground) tuple.push_back(queries[q].args[static_cast<std::size_t>(i)]);
    by_tuple[tuple].push_back(q);
  }
  const std::vector<std::pair<std::vector<int>, std::vector<std::size_t>>> tuples(by_tuple.begin(), by_tuple.end());

  // The first look-up of every distinct constant, shared by its tuples.
  const bool use_graph = graph_ && !ground.empty();
  std::vector<int> distinct;
  if (use_graph) {
    for (const auto& [tuple, members] : tuples) distinct.insert(distinct.end(), tuple.begin(), tuple.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  }
  std::vector<Neighbourhood> first(distinct.size());
#pragma omp parallel for schedule(dynamic, 4)
  for (std::size_t i = 0; i < distinct.size(); ++i) first[i] = neighbourhood(distinct[i], options_.neighbours);
  auto first_of = [&](int c) { return &first[static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), c) - distinct.begin())]; };

  std::vector<std::vector<int>> found(queries.size());
  const int widest = lookup_ == Lookup::KdTree ? std::max(1, static_cast<int>(points_.rows())) : options_.max_neighbours;
#pragma omp parallel
  {
    TupleSearch s(*this, ground, arity, want);
    std::vector<Neighbourhood> wider(ground.size());
    std::vector<const Neighbourhood*> near(ground.size());
#pragma omp for schedule(dynamic, 2)
    for (std::size_t t = 0; t < tuples.size(); ++t) {
      const auto& [tuple, members] = tuples[t];
      for (int m = options_.neighbours;; m = std::min(2 * m, widest)) {
        s.reset_groups();
        float bound = kInfinity;
        if (use_graph) {
          for (std::size_t i = 0; i < ground.size(); ++i) {
            if (m == options_.neighbours) near[i] = first_of(tuple[i]);
            else near[i] = &(wider[i] = neighbourhood(tuple[i], m));
          }
          bound = s.candidates_near(tuple, near);
        } else {
          s.scan(tuple);
        }
        for (int g = 0; g < num_groups; ++g) s.sorted[static_cast<std::size_t>(g)] = s.groups[static_cast<std::size_t>(g)].sorted();
        bool certified = true;
        for (std::size_t q : members) {
          const PredicateDistances& pd = predicate_distances.at(queries[q].predicate_row);
          ann::TopK best;
          best.reset(want);
          for (int g = 0; g < num_groups; ++g)
            for (const ann::Scored& e : s.sorted[static_cast<std::size_t>(g)]) best.push(pd.to_group[static_cast<std::size_t>(g)] + e.distance, e.id);
          // Every fact not looked at is at least `unseen` away; the answer is
          // certified when the last fact it keeps (want minus this query's
          // masked facts: the caller asked for spares) is not farther.
          const float unseen = pd.nearest + bound;
          found[q].clear();
          const int to_keep = std::max(1, want - queries[q].masked.size());
          int kept = 0;
          float last_kept = kInfinity;
          for (const ann::Scored& b : best.sorted()) {
            found[q].push_back(b.id);
            if (!queries[q].masked.contains(b.id) && ++kept == to_keep) last_kept = b.distance;
          }
          certified = certified && (unseen == kInfinity || last_kept <= unseen);
        }
        if (certified || m >= widest) break;
        count_widened();
      }
    }
  }
  return found;
}

}  // namespace ntp
