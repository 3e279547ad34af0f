// ann/index.cpp: argument checks shared by every index, the default update
// (rebuild), and the factory make_index.
#include "ann/index.h"

#include "ann/brute_force.h"
#include "ann/hnsw.h"
#include "ann/kd_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ann {
namespace {

std::string shape(const RowMatrix& m) {
  return "(" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + ")";
}

// Throws if `m` holds a NaN or an infinity, naming the first one found.
void check_finite(const RowMatrix& m, const char* who, const char* what) {
  if (m.allFinite()) return;
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      if (!std::isfinite(m(r, c)))
        throw std::invalid_argument(std::string(who) + ": " + what + " row " + std::to_string(r) +
                                    ", column " + std::to_string(c) + " is " +
                                    std::to_string(m(r, c)) + "; expected finite values");
}

}  // namespace

void check_build_input(const RowMatrix& points, const char* who) {
  if (points.rows() == 0 || points.cols() == 0)
    throw std::invalid_argument(std::string(who) + ": cannot index an empty matrix " +
                                shape(points) + "; expected at least one row and one column");
  if (points.rows() > std::numeric_limits<int>::max() - 1)
    throw std::invalid_argument(std::string(who) + ": too many rows " + shape(points) +
                                " for int ids");
  check_finite(points, who, "point");
}

void check_search_input(const Index& index, const RowMatrix& queries, int k, const char* who) {
  if (k <= 0)
    throw std::invalid_argument(std::string(who) + ": k must be >= 1, got " + std::to_string(k));
  if (index.size() == 0)
    throw std::invalid_argument(std::string(who) + ": the index is empty; call build() first");
  if (queries.cols() != index.dim())
    throw std::invalid_argument(std::string(who) + ": queries have shape " + shape(queries) +
                                " but the index holds " + std::to_string(index.dim()) +
                                "-dimensional points");
  check_finite(queries, who, "query");
}

void check_update_input(const Index& index, const std::vector<int>& ids, const RowMatrix& points,
                        const char* who) {
  if (index.size() == 0)
    throw std::invalid_argument(std::string(who) + ": the index is empty; call build() first");
  if (static_cast<Eigen::Index>(ids.size()) != points.rows() || points.cols() != index.dim())
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(ids.size()) +
                                " ids with points of shape " + shape(points) + "; expected (" +
                                std::to_string(ids.size()) + ", " + std::to_string(index.dim()) +
                                ")");
  std::vector<int> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || sorted[i] >= index.size())
      throw std::invalid_argument(std::string(who) + ": id " + std::to_string(sorted[i]) +
                                  " is outside [0, " + std::to_string(index.size()) + ")");
    if (i > 0 && sorted[i] == sorted[i - 1])
      throw std::invalid_argument(std::string(who) + ": id " + std::to_string(sorted[i]) +
                                  " appears more than once");
  }
  check_finite(points, who, "point");
}

void Index::update(const std::vector<int>& ids, const RowMatrix& points) {
  check_update_input(*this, ids, points, "Index::update");
  RowMatrix moved = this->points();
  for (size_t i = 0; i < ids.size(); ++i)
    moved.row(ids[i]) = points.row(static_cast<Eigen::Index>(i));
  build(moved);
}

void Index::move_points(const std::vector<int>& ids, const RowMatrix& points) { update(ids, points); }

std::unique_ptr<Index> make_index(const std::string& kind, int n, int d) {
  if (kind == "brute") return std::make_unique<BruteForce>();
  if (kind == "kdtree") return std::make_unique<KdTree>();
  if (kind == "hnsw") return std::make_unique<Hnsw>();
  if (kind == "auto") {
    if (n < 0 || d < 0)
      throw std::invalid_argument("make_index: n and d must be >= 0 for \"auto\", got n = " +
                                  std::to_string(n) + ", d = " + std::to_string(d));
    // Crossovers measured with one thread, k = 10, Gaussian-mixture keys
    // (`bench_ann --crossovers`, table in docs/RESULTS_ANN.md, "Crossovers
    // behind make_index"): the k-d tree is far ahead of brute force up to
    // d = 8 at every n tried (1,000-100,000), about level at d = 16, and behind from
    // d = 32 once n >= 5,000; we switch at d = 12. Hnsw (ef 64) answers
    // faster than brute force from n*d of about 3e5 (d = 16: n ~ 15,000;
    // d = 64: ~5,000; d = 256: < 5,000), but its build costs 40-135 us of
    // CPU per point, repaid only after tens of thousands of queries per
    // build; we ask for n*d >= 2e6 (d = 60: n >= 33,000; d = 300: n >= 6,700)
    // and otherwise keep the exact answer.
    if (d <= 12) return std::make_unique<KdTree>();
    if (static_cast<double>(n) * d >= 2e6) return std::make_unique<Hnsw>();
    return std::make_unique<BruteForce>();
  }
  throw std::invalid_argument("make_index: unknown index kind \"" + kind +
                              "\"; expected brute, kdtree, hnsw or auto");
}

}  // namespace ann
