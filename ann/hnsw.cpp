// ann/hnsw.cpp: building, searching and updating the HNSW graph (see hnsw.h).
#include "ann/hnsw.h"

#include "ann/distance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace ann {
namespace {

constexpr int kMaxLevel = 30;  // levels above ~log_M(n) are vanishingly rare
constexpr float kInf = std::numeric_limits<float>::infinity();

// Heap orders on distance alone (cheaper than Scored's id tie-break; heap
// operations are deterministic either way). Nearer keeps the farthest result
// at the front of the results heap, Farther the nearest candidate at the front.
struct Nearer {
  bool operator()(const Scored& a, const Scored& b) const { return a.distance < b.distance; }
};
struct Farther {
  bool operator()(const Scored& a, const Scored& b) const { return a.distance > b.distance; }
};

// Replaces the farthest of a full results heap (max-heap on distance) by `s`
// and restores the heap with one sift-down, half the work of pop + push.
void replace_farthest(std::vector<Scored>& heap, Scored s) {
  const size_t n = heap.size();
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap[child].distance < heap[child + 1].distance) ++child;
    if (heap[child].distance <= s.distance) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = s;
}

}  // namespace

// Per-thread working memory of searches and insertions, reused across calls.
// Cache-line aligned: two threads' scratches must not share a line, or every
// push_back (which writes a vector's end pointer) bounces it between cores.
struct alignas(64) Hnsw::Scratch {
  explicit Scratch(int n) : visited(n) {}
  VisitedSet visited;
  std::vector<Scored> entries;     // where the next layer's search starts
  std::vector<Scored> candidates;  // min-heap (Farther) of nodes to expand
  std::vector<Scored> results;     // max-heap of the best ef; sorted on return
  std::vector<int> links;          // one list copied under its lock
  std::vector<int> fresh;          // unvisited neighbours of the node being expanded
  std::vector<float> fresh_distances;  // their distances to the query
  std::vector<Scored> kept;        // neighbours chosen for the inserted node
  std::vector<Scored> pool;        // candidates when pruning a full list
  std::vector<Scored> pruned;      // what pruning keeps
  std::vector<int> old_links;      // a moved node's links before relinking
  std::vector<int> old_offsets;    // (levels + 2) offsets into old_links
  char padding[64];                // keeps the next allocation off the last line
};

Hnsw::Hnsw(const HnswParams& params) : params_(params) {
  if (params.M < 2 || params.M > 1000)
    throw std::invalid_argument("Hnsw: M must be in [2, 1000], got " + std::to_string(params.M));
  if (params.ef_construction < 1)
    throw std::invalid_argument("Hnsw: ef_construction must be >= 1, got " +
                                std::to_string(params.ef_construction));
  if (params.ef < 1)
    throw std::invalid_argument("Hnsw: ef must be >= 1, got " + std::to_string(params.ef));
  if (!(params.rebuild_fraction >= 0.0 && params.rebuild_fraction <= 1.0))
    throw std::invalid_argument("Hnsw: rebuild_fraction must be in [0, 1], got " +
                                std::to_string(params.rebuild_fraction));
}

Hnsw::~Hnsw() = default;

void Hnsw::set_ef(int ef) {
  if (ef < 1) throw std::invalid_argument("Hnsw::set_ef: ef must be >= 1, got " + std::to_string(ef));
  params_.ef = ef;
}

float Hnsw::distance(const float* q, int id) const {
  return l2_squared(q, vec(id), static_cast<int>(points_.cols()));
}

std::vector<int> Hnsw::links(int id, int layer) const {
  if (id < 0 || id >= size() || layer < 0 || layer > level(id))
    throw std::invalid_argument("Hnsw::links: no layer " + std::to_string(layer) + " for node " +
                                std::to_string(id));
  const int* b = block(id, layer);
  return std::vector<int>(b + 1, b + 1 + b[0]);
}

size_t Hnsw::memory_bytes() const {
  size_t bytes = sizeof(float) * static_cast<size_t>(points_.size()) + levels_.size() +
                 sizeof(int) * (links0_.size() + upper_.size()) +
                 sizeof(size_t) * upper_offset_.size() + sizeof(SpinLock) * levels_.size();
  std::lock_guard<std::mutex> guard(pool_mutex_);
  for (const auto& s : pool_) bytes += s->visited.memory_bytes();
  return bytes;
}

void Hnsw::draw_levels() {
  const int n = static_cast<int>(levels_.size());
  std::mt19937_64 rng(params_.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double ml = 1.0 / std::log(static_cast<double>(params_.M));
  max_level_ = -1;
  for (int i = 0; i < n; ++i) {
    const double u = 1.0 - uniform(rng);  // (0, 1]
    const int level = std::min(kMaxLevel, static_cast<int>(std::floor(-std::log(u) * ml)));
    levels_[i] = static_cast<uint8_t>(level);
    if (level > max_level_) {
      max_level_ = level;
      entry_ = i;
    }
  }
}

void Hnsw::allocate(int n, int d) {
  stride0_ = 1 + 2 * static_cast<size_t>(params_.M);
  stride_upper_ = 1 + static_cast<size_t>(params_.M);
  points_.resize(n, d);
  levels_.assign(static_cast<size_t>(n), 0);
  draw_levels();
  links0_.assign(static_cast<size_t>(n) * stride0_, 0);
  upper_offset_.resize(static_cast<size_t>(n));
  size_t total = 0;
  for (int i = 0; i < n; ++i) {
    upper_offset_[i] = total;
    total += levels_[i] * stride_upper_;
  }
  upper_.assign(total, 0);
  locks_.reset(new SpinLock[static_cast<size_t>(n)]);
  std::lock_guard<std::mutex> guard(pool_mutex_);
  pool_.clear();
}

void Hnsw::build(const RowMatrix& points) {
  check_build_input(points, "Hnsw::build");
  const int n = static_cast<int>(points.rows());
  allocate(n, static_cast<int>(points.cols()));
  points_ = points;
  // The entry point has the highest level and goes in first (it has no one
  // to link to), so no insertion ever has to move it.
#pragma omp parallel
  {
    Scratch s(n);
#pragma omp for schedule(dynamic, 64)
    for (int i = 0; i < n; ++i)
      if (i != entry_) insert(i, s, i);
  }
}

template <bool kLocked>
Scored Hnsw::greedy(const float* q, Scored start, int layer, int exclude) const {
  Scored best = start;
  int links[1024];  // upper layers hold at most M <= 1000 links
  for (bool moved = true; moved;) {
    moved = false;
    const int* b = block(best.id, layer);
    int count;
    if (kLocked) {
      locks_[best.id].lock();
      count = b[0];
      std::copy(b + 1, b + 1 + count, links);
      locks_[best.id].unlock();
    } else {
      count = b[0];
      std::copy(b + 1, b + 1 + count, links);
    }
    float distances[1024];
    l2_squared_to_rows(q, points_.data(), static_cast<size_t>(points_.cols()), links, count,
                       static_cast<int>(points_.cols()), distances);
    for (int j = 0; j < count; ++j) {
      if (links[j] == exclude) continue;
      if (distances[j] < best.distance) {
        best = {distances[j], links[j]};
        moved = true;
      }
    }
  }
  return best;
}

template <bool kLocked>
void Hnsw::search_layer(const float* q, int ef, int layer, int exclude, Scratch& s) const {
  VisitedSet& visited = s.visited;
  std::vector<Scored>& candidates = s.candidates;
  std::vector<Scored>& results = s.results;
  visited.clear();
  candidates.clear();
  results.clear();
  if (exclude >= 0) visited.insert(exclude);
  for (const Scored& e : s.entries) {
    if (e.id == exclude) {  // a moved node may start its own search; expand it, never return it
      candidates.push_back(e);
      std::push_heap(candidates.begin(), candidates.end(), Farther());
    } else if (visited.insert(e.id)) {
      candidates.push_back(e);
      std::push_heap(candidates.begin(), candidates.end(), Farther());
      results.push_back(e);
      std::push_heap(results.begin(), results.end(), Nearer());
      if (static_cast<int>(results.size()) > ef) {
        std::pop_heap(results.begin(), results.end(), Nearer());
        results.pop_back();
      }
    }
  }
  const int d = static_cast<int>(points_.cols());
  std::vector<int>& fresh = s.fresh;
  std::vector<float>& fresh_distances = s.fresh_distances;
  while (!candidates.empty()) {
    const Scored c = candidates.front();
    if (static_cast<int>(results.size()) >= ef && results.front().distance < c.distance) break;
    std::pop_heap(candidates.begin(), candidates.end(), Farther());
    candidates.pop_back();
    // The next candidate's links will be read on the next round: ask for them now.
    if (!candidates.empty()) __builtin_prefetch(block(candidates.front().id, layer));
    // Collect the unvisited neighbours first, then compute their distances
    // in one batch (which requests the vectors a few steps ahead).
    const int* b = block(c.id, layer);
    fresh.clear();
    if (kLocked) locks_[c.id].lock();
    const int count = b[0];
    for (int j = 1; j <= count; ++j)
      if (visited.insert(b[j])) fresh.push_back(b[j]);
    if (kLocked) locks_[c.id].unlock();
    const int found = static_cast<int>(fresh.size());
    fresh_distances.resize(fresh.size());
    l2_squared_to_rows(q, points_.data(), static_cast<size_t>(d), fresh.data(), found, d, fresh_distances.data());
    for (int j = 0; j < found; ++j) {
      const int e = fresh[j];
      const float de = fresh_distances[static_cast<size_t>(j)];
      if (static_cast<int>(results.size()) < ef) {
        results.push_back({de, e});
        std::push_heap(results.begin(), results.end(), Nearer());
      } else if (de < results.front().distance) {
        replace_farthest(results, {de, e});
      } else {
        continue;
      }
      candidates.push_back({de, e});
      std::push_heap(candidates.begin(), candidates.end(), Farther());
    }
  }
  std::sort(results.begin(), results.end());
}

void Hnsw::select_neighbours(const std::vector<Scored>& candidates, int limit,
                             std::vector<Scored>& kept) const {
  const int d = static_cast<int>(points_.cols());
  kept.clear();
  for (const Scored& c : candidates) {
    if (static_cast<int>(kept.size()) >= limit) break;
    const float* cv = vec(c.id);
    bool diverse = true;
    for (const Scored& k : kept) {
      if (l2_squared(cv, vec(k.id), d) < c.distance) {
        diverse = false;
        break;
      }
    }
    if (diverse) kept.push_back(c);
  }
  if (!params_.keep_pruned) return;
  // The paper's keepPrunedConnections: fill the free slots with the nearest
  // candidates the heuristic dropped (kept is a subsequence of candidates).
  const size_t diverse_count = kept.size();
  for (const Scored& c : candidates) {
    if (static_cast<int>(kept.size()) >= limit) break;
    const auto end = kept.begin() + static_cast<std::ptrdiff_t>(diverse_count);
    if (std::find_if(kept.begin(), end, [&](const Scored& k) { return k.id == c.id; }) == end) kept.push_back(c);
  }
}

void Hnsw::link_back(int from, int to, int layer, Scratch& s) {
  SpinLock& lock = locks_[from];
  lock.lock();
  int* b = block(from, layer);
  const int count = b[0];
  for (int j = 1; j <= count; ++j) {
    if (b[j] == to) {
      lock.unlock();
      return;
    }
  }
  if (count < max_links(layer)) {
    b[1 + count] = to;
    b[0] = count + 1;
    lock.unlock();
    return;
  }
  // Full: keep the heuristic's choice among the old links and the new one.
  const float* base = vec(from);
  s.pool.clear();
  s.pool.push_back({distance(base, to), to});
  for (int j = 1; j <= count; ++j) s.pool.push_back({distance(base, b[j]), b[j]});
  std::sort(s.pool.begin(), s.pool.end());
  select_neighbours(s.pool, max_links(layer), s.pruned);
  b[0] = static_cast<int>(s.pruned.size());
  for (size_t j = 0; j < s.pruned.size(); ++j) b[1 + j] = s.pruned[j].id;
  lock.unlock();
}

void Hnsw::unlink(int from, int to, int layer) {
  SpinLock& lock = locks_[from];
  lock.lock();
  int* b = block(from, layer);
  for (int j = 1; j <= b[0]; ++j) {
    if (b[j] == to) {
      b[j] = b[b[0]];
      --b[0];
      break;
    }
  }
  lock.unlock();
}

void Hnsw::insert(int id, Scratch& s, int exclude) {
  const float* q = vec(id);
  const int top = levels_[id];
  Scored nearest{entry_ == exclude ? kInf : distance(q, entry_), entry_};
  for (int layer = max_level_; layer > top; --layer) nearest = greedy<true>(q, nearest, layer, exclude);
  s.entries.assign(1, nearest);
  for (int layer = std::min(top, max_level_); layer >= 0; --layer) {
    search_layer<true>(q, params_.ef_construction, layer, exclude, s);
    select_neighbours(s.results, params_.M, s.kept);
    locks_[id].lock();
    int* b = block(id, layer);
    b[0] = static_cast<int>(s.kept.size());
    for (size_t j = 0; j < s.kept.size(); ++j) b[1 + j] = s.kept[j].id;
    locks_[id].unlock();
    for (const Scored& r : s.kept) link_back(r.id, id, layer, s);
    // The next layer starts from everything found here (a moved node that
    // found nothing on a layer of its own keeps its previous start).
    if (!s.results.empty()) s.entries.swap(s.results);
  }
}

void Hnsw::update(const std::vector<int>& ids, const RowMatrix& points) {
  check_update_input(*this, ids, points, "Hnsw::update");
  const int n = size();
  if (static_cast<double>(ids.size()) > params_.rebuild_fraction * n) {
    RowMatrix moved = points_;
    for (size_t i = 0; i < ids.size(); ++i) moved.row(ids[i]) = points.row(static_cast<Eigen::Index>(i));
    build(moved);
    return;
  }
  for (size_t i = 0; i < ids.size(); ++i) points_.row(ids[i]) = points.row(static_cast<Eigen::Index>(i));
  const int count = static_cast<int>(ids.size());
#pragma omp parallel
  {
    Scratch s(n);
#pragma omp for schedule(dynamic, 8)
    for (int i = 0; i < count; ++i) {
      const int p = ids[i];
      const int top = levels_[p];
      s.old_links.clear();
      s.old_offsets.assign(1, 0);
      for (int layer = 0; layer <= top; ++layer) {
        locks_[p].lock();
        const int* b = block(p, layer);
        s.old_links.insert(s.old_links.end(), b + 1, b + 1 + b[0]);
        locks_[p].unlock();
        s.old_offsets.push_back(static_cast<int>(s.old_links.size()));
      }
      insert(p, s, p);
      // Former neighbours that are not neighbours any more forget p.
      for (int layer = 0; layer <= top; ++layer) {
        locks_[p].lock();
        const int* b = block(p, layer);
        s.links.assign(b + 1, b + 1 + b[0]);
        locks_[p].unlock();
        for (int j = s.old_offsets[layer]; j < s.old_offsets[layer + 1]; ++j) {
          const int o = s.old_links[j];
          if (std::find(s.links.begin(), s.links.end(), o) == s.links.end()) unlink(o, p, layer);
        }
      }
    }
  }
}

void Hnsw::move_points(const std::vector<int>& ids, const RowMatrix& points) {
  check_update_input(*this, ids, points, "Hnsw::move_points");
  for (size_t i = 0; i < ids.size(); ++i) points_.row(ids[i]) = points.row(static_cast<Eigen::Index>(i));
}

std::unique_ptr<Hnsw::Scratch> Hnsw::acquire_scratch() const {
  std::lock_guard<std::mutex> guard(pool_mutex_);
  while (!pool_.empty()) {
    std::unique_ptr<Scratch> s = std::move(pool_.back());
    pool_.pop_back();
    if (s->visited.capacity() == size()) return s;
  }
  return std::make_unique<Scratch>(size());
}

void Hnsw::release_scratch(std::unique_ptr<Scratch> s) const {
  std::lock_guard<std::mutex> guard(pool_mutex_);
  pool_.push_back(std::move(s));
}

void Hnsw::search_one(const float* q, int k, int ef, Scratch& s, int* ids, float* distances) const {
  Scored nearest{distance(q, entry_), entry_};
  for (int layer = max_level_; layer > 0; --layer) nearest = greedy<false>(q, nearest, layer, -1);
  s.entries.assign(1, nearest);
  search_layer<false>(q, std::max(ef, k), 0, -1, s);
  if (static_cast<int>(s.results.size()) < k) {
    // Fewer nodes reachable than asked for (tiny or damaged graph): scan all.
    TopK all;
    all.reset(k);
    for (int i = 0; i < size(); ++i) all.push(distance(q, i), i);
    s.results = all.sorted();
  }
  for (int j = 0; j < k; ++j) {
    ids[j] = s.results[j].id;
    distances[j] = s.results[j].distance;
  }
}

Neighbours Hnsw::search(const RowMatrix& queries, int k) const { return search(queries, k, params_.ef); }

Neighbours Hnsw::search(const RowMatrix& queries, int k, int ef) const {
  check_search_input(*this, queries, k, "Hnsw::search");
  if (ef < 1) throw std::invalid_argument("Hnsw::search: ef must be >= 1, got " + std::to_string(ef));
  const int m = static_cast<int>(queries.rows());
  Neighbours out;
  out.k = std::min(k, size());
  out.ids.resize(static_cast<size_t>(m) * out.k);
  out.distances.resize(static_cast<size_t>(m) * out.k);
#pragma omp parallel if (m > 1)
  {
    std::unique_ptr<Scratch> s = acquire_scratch();
#pragma omp for schedule(dynamic, 16)
    for (int q = 0; q < m; ++q) {
      const size_t at = static_cast<size_t>(q) * out.k;
      search_one(queries.row(q).data(), out.k, ef, *s, &out.ids[at], &out.distances[at]);
    }
    release_scratch(std::move(s));
  }
  return out;
}

}  // namespace ann
