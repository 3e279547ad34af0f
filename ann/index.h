// ann/index.h: the one interface through which the prover asks for nearest
// neighbours. Implementations: BruteForce (exact, batched matrix product),
// KdTree (exact, nanoflann) and Hnsw (approximate, hierarchical graph).
//
// Points and queries are rows of row-major float matrices; distances are
// squared Euclidean. Ids are row numbers of the matrix given to build().
// Threads: search() may be called from several threads at once (inside an
// outer OpenMP region it runs on the calling thread); build() and update()
// must not overlap with any other call on the same index.
#pragma once

#include <Eigen/Dense>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ann {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Result of a batch search: for query q, its j-th neighbour (nearest first) is
// ids[q * k + j] at squared distance distances[q * k + j]. `k` is the number of
// results per query actually returned (min(requested k, size())).
struct Neighbours {
  int k = 0;
  std::vector<int> ids;          // (queries * k)
  std::vector<float> distances;  // (queries * k)
};

class Index {
 public:
  virtual ~Index() = default;
  // Indexes the rows of `points` (n, d), replacing anything indexed before.
  // Throws std::invalid_argument on an empty matrix or NaN/Inf entries.
  virtual void build(const RowMatrix& points) = 0;
  // The k nearest indexed points of each row of `queries` (q, d). Throws
  // std::invalid_argument if k <= 0, the index is empty, or the dimension differs.
  virtual Neighbours search(const RowMatrix& queries, int k) const = 0;
  // Replaces the vectors of rows `ids` by the rows of `points` (ids.size(), d),
  // after embeddings moved. The default rebuilds from scratch.
  virtual void update(const std::vector<int>& ids, const RowMatrix& points);
  // Replaces the vectors of rows `ids` without restructuring, for points that
  // moved a little: later searches measure the new vectors, through a
  // structure built for the old ones. The default, for structures that would
  // give wrong answers (a k-d tree's cells), is update().
  virtual void move_points(const std::vector<int>& ids, const RowMatrix& points);
  virtual int size() const = 0;
  virtual int dim() const = 0;
  virtual std::string name() const = 0;
  // The indexed points (size(), dim()) as last given to build() and update().
  virtual const RowMatrix& points() const = 0;
  // Bytes held by the index structures (vectors, links, norms, trees, locks).
  virtual size_t memory_bytes() const = 0;
};

// Shared argument checks; each throws std::invalid_argument naming `who`
// (e.g. "BruteForce::search") and what was expected.
void check_build_input(const RowMatrix& points, const char* who);
void check_search_input(const Index& index, const RowMatrix& queries, int k, const char* who);
void check_update_input(const Index& index, const std::vector<int>& ids, const RowMatrix& points,
                        const char* who);

// "brute", "kdtree", "hnsw"; "auto" picks by n and d from measured crossovers.
std::unique_ptr<Index> make_index(const std::string& kind, int n, int d);

}  // namespace ann
