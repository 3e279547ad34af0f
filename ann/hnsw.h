// ann/hnsw.h: approximate k nearest neighbours on a Hierarchical Navigable
// Small World graph (Malkov & Yashunin, "Efficient and robust approximate
// nearest neighbor search using Hierarchical Navigable Small World graphs",
// TPAMI 2018), written from the paper.
//
// Each point gets a level floor(-ln(U) * mL), U uniform in (0, 1],
// mL = 1 / ln(M), and lives on layers 0..level. Layer 0 keeps up to 2M links
// per node, upper layers M. A search descends greedily from the entry point
// (the node of the highest level) to layer 1, then runs a beam search of
// width ef on layer 0. Insertion runs the same search with width
// efConstruction on every layer of the new node and keeps the neighbours
// chosen by the paper's heuristic (a candidate is kept only if it is closer
// to the new node than to every neighbour kept so far), then links back,
// pruning overfull lists with the same heuristic.
//
// Memory: the vectors are one row-major matrix; layer-0 links are one array
// of fixed-size blocks [count, 2M ids]; upper-layer links are one array of
// [count, M ids] blocks, found through a per-node offset. Build inserts the
// highest node first, so the entry point never changes, then the others in
// parallel (OpenMP) with one spin lock per node; with one thread the graph
// depends only on the seed. Left out: deletion, other metrics, the paper's
// "extend candidates" option.
#pragma once

#include "ann/index.h"
#include "ann/spin_lock.h"
#include "ann/top_k.h"
#include "ann/visited_set.h"

#include <cstdint>
#include <iosfwd>
#include <mutex>

namespace ann {

struct HnswParams {
  int M = 16;                 // links per node on upper layers; 2M on layer 0
  int ef_construction = 200;  // beam width while inserting
  int ef = 64;                // beam width while searching (at least k is used)
  uint64_t seed = 42;         // draws the levels
  // update() relinks the moved rows in place when they are at most this
  // fraction of the index, and rebuilds otherwise.
  double rebuild_fraction = 0.3;
  // The paper's "keep pruned connections": fill the link slots the heuristic
  // leaves free with the nearest candidates it dropped. Off by default (as
  // in hnswlib); needed when a few points lie near the centre of the others
  // (trained embeddings shrunk by L2): the heuristic then links every new
  // point to those hubs alone and leaves almost every node unreachable.
  bool keep_pruned = false;
};

class Hnsw : public Index {
 public:
  explicit Hnsw(const HnswParams& params = {});
  ~Hnsw() override;
  Hnsw(const Hnsw&) = delete;
  Hnsw& operator=(const Hnsw&) = delete;

  void build(const RowMatrix& points) override;
  Neighbours search(const RowMatrix& queries, int k) const override;
  // As search(), with beam width `ef` instead of params().ef.
  Neighbours search(const RowMatrix& queries, int k, int ef) const;
  // Moves rows `ids` to `points` and relinks each one's neighbourhood: new
  // links found by a search from the entry point, back links added, and the
  // moved node dropped from the lists of its former neighbours. Rebuilds when
  // more than params().rebuild_fraction of the rows move.
  void update(const std::vector<int>& ids, const RowMatrix& points) override;
  // Writes the new vectors in place and keeps every link: a greedy walk
  // stays valid, and recall degrades only as the points drift far from
  // where they were linked (update() relinks them).
  void move_points(const std::vector<int>& ids, const RowMatrix& points) override;
  int size() const override { return static_cast<int>(points_.rows()); }
  int dim() const override { return static_cast<int>(points_.cols()); }
  std::string name() const override { return "hnsw"; }
  const RowMatrix& points() const override { return points_; }
  size_t memory_bytes() const override;

  const HnswParams& params() const { return params_; }
  void set_ef(int ef);
  int max_level() const { return max_level_; }
  int level(int id) const { return levels_[static_cast<size_t>(id)]; }
  // The links of `id` on `layer` (a copy; layer <= level(id)).
  std::vector<int> links(int id, int layer) const;

  // Checks the graph: every link points at an existing node other than its
  // owner that lives on that layer, without repeats; counts within M / 2M;
  // the entry point has the highest level. Throws std::logic_error listing
  // the first problems found; returns the total number of links.
  size_t check_integrity() const;

  // Binary file: magic "NTPHNSW\0", format version, parameters, levels,
  // vectors and links (little-endian). load() checks the header, the sizes
  // and the graph, and throws std::runtime_error naming the file otherwise.
  // Sizes in the header are checked against the bytes the file holds before
  // anything is allocated. The stream form names the input `path` in errors.
  void save(const std::string& path) const;
  static std::unique_ptr<Hnsw> load(const std::string& path);
  static std::unique_ptr<Hnsw> load(std::istream& in, const std::string& path);

 private:
  struct Scratch;

  // Link block of `id` on `layer`: [count, ids...].
  int* block(int id, int layer) {
    return layer == 0 ? &links0_[static_cast<size_t>(id) * stride0_]
                      : &upper_[upper_offset_[static_cast<size_t>(id)] +
                                static_cast<size_t>(layer - 1) * stride_upper_];
  }
  const int* block(int id, int layer) const { return const_cast<Hnsw*>(this)->block(id, layer); }
  const float* vec(int id) const { return points_.data() + static_cast<size_t>(id) * points_.cols(); }
  float distance(const float* q, int id) const;
  int max_links(int layer) const { return layer == 0 ? 2 * params_.M : params_.M; }

  void allocate(int n, int d);
  void draw_levels();
  void insert(int id, Scratch& s, int exclude);
  // Greedy walk on `layer` towards q from `start`; returns the closest node found.
  template <bool kLocked>
  Scored greedy(const float* q, Scored start, int layer, int exclude) const;
  // Beam search of width ef on `layer` from s.entries; leaves the best
  // (at most ef) in s.results, sorted nearest first.
  template <bool kLocked>
  void search_layer(const float* q, int ef, int layer, int exclude, Scratch& s) const;
  // The paper's heuristic: from `candidates` (nearest first) keep each one
  // closer to the base point than to all kept before, up to `limit`.
  void select_neighbours(const std::vector<Scored>& candidates, int limit,
                         std::vector<Scored>& kept) const;
  void link_back(int from, int to, int layer, Scratch& s);
  void unlink(int from, int to, int layer);
  void search_one(const float* q, int k, int ef, Scratch& s, int* ids, float* distances) const;
  std::unique_ptr<Scratch> acquire_scratch() const;
  void release_scratch(std::unique_ptr<Scratch> s) const;

  HnswParams params_;
  RowMatrix points_;              // (n, d)
  std::vector<uint8_t> levels_;   // (n)
  std::vector<int> links0_;       // (n * stride0_), stride0_ = 1 + 2M
  std::vector<int> upper_;        // blocks of stride_upper_ = 1 + M
  std::vector<size_t> upper_offset_;  // (n) start of each node's layer-1 block in upper_
  size_t stride0_ = 0;
  size_t stride_upper_ = 0;
  int entry_ = -1;
  int max_level_ = -1;
  std::unique_ptr<SpinLock[]> locks_;  // (n), taken while building and updating
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<Scratch>> pool_;  // per-thread search state
};

}  // namespace ann
