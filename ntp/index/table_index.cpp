// ntp/index/table_index.cpp: exact search over tabulated symbol distances (see table_index.h).
#include "ntp/index/table_index.h"

#include "ann/top_k.h"

#include <algorithm>
#include <numeric>

namespace ntp {

namespace {

// Constant tables above this many entries (C x C floats) are not built: "auto"
// switches to an ANN index instead. 64M floats = 256 MiB (C up to 8,192).
constexpr double kMaxTableEntries = 64.0 * 1024 * 1024;
// Constants sorted by distance from each constant: C x C ints, rebuilt with
// the tables. Up to 4,096 constants (64 MiB); beyond, searches scan groups.
constexpr int kMaxSortedConstants = 4096;
// A group with fewer than one fact per kSparseGroup constants is scanned
// whole instead of walked outwards.
constexpr std::size_t kSparseGroup = 4;

// Squared distances between the rows of a (n, d) and b (m, d): (n, m).
Eigen::MatrixXf squared_distances(const ad::Matrix& a, const ad::Matrix& b) {
  const Eigen::MatrixXf af = a.cast<float>(), bf = b.cast<float>();
  Eigen::MatrixXf d = -2.0f * af * bf.transpose();
  d.colwise() += af.rowwise().squaredNorm();
  d.rowwise() += bf.rowwise().squaredNorm().transpose();
  return d.cwiseMax(0.0f);
}

}  // namespace

struct TableIndex::Pattern {
  int arity = 0;
  std::vector<int> ground;  // argument positions compared
  // The facts of one KB predicate, and their arguments at the ground
  // positions, laid out column by column for a tight scan.
  struct Group {
    std::vector<int> ids;                 // (facts of this predicate)
    std::vector<std::vector<int>> args;   // (ground positions, facts)
    // The group's facts bucketed by the constant at the first ground
    // position: facts by_first[offsets[c] .. offsets[c + 1]) have constant c there.
    std::vector<int> first_offsets;       // (C + 1)
    std::vector<int> by_first;            // (facts), indices into ids
  };
  std::vector<Group> by_predicate;        // (P)
};

TableIndex::TableIndex(const Model& model, int update_every) : FactIndex(model), update_every_(update_every) {}

TableIndex::~TableIndex() = default;

bool TableIndex::fits(const Model& model) {
  const double c = model.kb.constants.size();
  return c * c <= kMaxTableEntries;
}

void TableIndex::all_moved() { tables_ready_ = false; }

void TableIndex::apply_moved(const MovedRows& rows) {
  if (rows.predicates.empty() && rows.constants.empty()) return;
  if (++steps_since_update_ < std::max(1, update_every_)) return;
  steps_since_update_ = 0;
  tables_ready_ = false;  // rebuilt by the next search
}

void TableIndex::build_tables() {
  constant_sq_ = squared_distances(model_.constants.value, model_.constants.value);
  // Predicate rows are ranked when a search first asks them: with
  // conditional rules the table has thousands of rows, a step asks a few.
  predicates_by_distance_.assign(static_cast<std::size_t>(model_.predicates.value.rows()), {});
  constants_by_distance_.clear();
  const int num_constants = static_cast<int>(constant_sq_.cols());
  if (num_constants <= kMaxSortedConstants) {
    constants_by_distance_.resize(static_cast<std::size_t>(num_constants));
#pragma omp parallel for schedule(static)
    for (int c = 0; c < num_constants; ++c) {
      std::vector<int>& order = constants_by_distance_[static_cast<std::size_t>(c)];
      order.resize(static_cast<std::size_t>(num_constants));
      std::iota(order.begin(), order.end(), 0);
      const float* dist = &constant_sq_(0, c);
      std::sort(order.begin(), order.end(), [dist](int a, int b) { return dist[a] < dist[b] || (dist[a] == dist[b] && a < b); });
    }
  }
  tables_ready_ = true;
}

void TableIndex::rank_predicate_rows(const std::vector<FactQuery>& queries) {
  std::vector<ad::Index> rows;
  for (const FactQuery& q : queries)
    if (predicates_by_distance_[static_cast<std::size_t>(q.predicate_row)].empty()) rows.push_back(q.predicate_row);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  if (rows.empty()) return;
  ad::Matrix asked(static_cast<ad::Index>(rows.size()), model_.dim);
  for (std::size_t i = 0; i < rows.size(); ++i) asked.row(static_cast<ad::Index>(i)) = model_.predicates.value.row(rows[i]);
  const Eigen::MatrixXf sq = squared_distances(asked, model_.predicates.value.topRows(model_.num_kb_predicates));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& groups = predicates_by_distance_[static_cast<std::size_t>(rows[i])];
    for (Eigen::Index g = 0; g < sq.cols(); ++g) groups.emplace_back(sq(static_cast<ad::Index>(i), g), static_cast<int>(g));
    std::sort(groups.begin(), groups.end());
  }
}

TableIndex::Pattern& TableIndex::pattern_for(const FactQuery& q) {
  std::vector<int> key = pattern_key(q);
  auto found = patterns_.find(key);
  if (found != patterns_.end()) return *found->second;

  auto p = std::make_unique<Pattern>();
  p->arity = key[0];
  p->ground.assign(key.begin() + 1, key.end());
  const std::vector<Atom>& facts = model_.kb.facts;
  p->by_predicate.resize(static_cast<std::size_t>(model_.num_kb_predicates));
  for (std::size_t f = 0; f < facts.size(); ++f)
    if (static_cast<int>(facts[f].args.size()) == p->arity) {
      Pattern::Group& group = p->by_predicate[static_cast<std::size_t>(facts[f].predicate)];
      group.ids.push_back(static_cast<int>(f));
      group.args.resize(p->ground.size());
      for (std::size_t g = 0; g < p->ground.size(); ++g)
        group.args[g].push_back(facts[f].args[static_cast<std::size_t>(p->ground[g])]);
    }
  if (!p->ground.empty()) {  // counting sort of each group by its first ground constant
    const std::size_t num_constants = static_cast<std::size_t>(model_.kb.constants.size());
    for (Pattern::Group& group : p->by_predicate) {
      group.first_offsets.assign(num_constants + 1, 0);
      for (std::size_t i = 0; i < group.ids.size(); ++i) ++group.first_offsets[static_cast<std::size_t>(group.args[0][i]) + 1];
      for (std::size_t c = 0; c < num_constants; ++c) group.first_offsets[c + 1] += group.first_offsets[c];
      group.by_first.resize(group.ids.size());
      std::vector<int> next(group.first_offsets.begin(), group.first_offsets.end() - 1);
      for (std::size_t i = 0; i < group.ids.size(); ++i)
        group.by_first[static_cast<std::size_t>(next[static_cast<std::size_t>(group.args[0][i])]++)] = static_cast<int>(i);
    }
  }
  return *patterns_.emplace(std::move(key), std::move(p)).first->second;
}

std::vector<std::vector<int>> TableIndex::search(const std::vector<FactQuery>& queries, int want) {
  std::unique_lock<std::mutex> lock(build_mutex_);
  Pattern& p = pattern_for(queries.front());
  if (!tables_ready_) build_tables();
  rank_predicate_rows(queries);
  lock.unlock();
  std::vector<std::vector<int>> found(queries.size());
  // Facts are visited one predicate group at a time, nearest predicate
  // first; once the predicate distance alone exceeds the current k-th best
  // total, no later group can contribute (all distances are >= 0).
#pragma omp parallel for schedule(dynamic, 16) if (queries.size() >= 64)  // threads for batches, not single queries
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const FactQuery& query = queries[q];
    const std::vector<std::pair<float, int>>& groups = predicates_by_distance_[static_cast<std::size_t>(query.predicate_row)];
    // constant_sq_ is symmetric and column-major: column c holds the
    // distances from constant c to every constant, contiguously.
    std::vector<const float*> columns;
    for (int a : p.ground) columns.push_back(&constant_sq_(0, query.args[static_cast<std::size_t>(a)]));
    ann::TopK best;  // the `want` nearest so far
    best.reset(want);
    // Nothing at a partial distance above the k-th best can enter (ties
    // still can: they are ordered by fact id).
    auto pruned = [&](float partial) { return partial > best.bound(); };
    // Walking outwards from the goal's first ground constant needs the
    // sorted constants; without them (larger vocabularies) each group is scanned.
    const std::vector<int>* outward =
        columns.empty() || constants_by_distance_.empty()
            ? nullptr
            : &constants_by_distance_[static_cast<std::size_t>(query.args[static_cast<std::size_t>(p.ground[0])])];
    for (const auto& [predicate_dist, g] : groups) {
      if (pruned(predicate_dist)) break;
      const Pattern::Group& group = p.by_predicate[static_cast<std::size_t>(g)];
      // A group with few facts (a textual pattern's, say) is cheaper to scan
      // whole than to walk outwards over constants whose buckets are mostly
      // empty; the distances are summed in the same order either way.
      if (outward == nullptr || group.ids.size() * kSparseGroup < outward->size()) {
        for (std::size_t i = 0; i < group.ids.size(); ++i) {
          float dist = predicate_dist;
          for (std::size_t c = 0; c < columns.size(); ++c) dist += columns[c][group.args[c][i]];
          best.push(dist, group.ids[i]);
        }
        continue;
      }
      for (const int first : *outward) {
        const float partial = predicate_dist + columns[0][first];  // the scan's first two terms, bit for bit
        if (pruned(partial)) break;
        for (int j = group.first_offsets[static_cast<std::size_t>(first)];
             j < group.first_offsets[static_cast<std::size_t>(first) + 1]; ++j) {
          const std::size_t i = static_cast<std::size_t>(group.by_first[static_cast<std::size_t>(j)]);
          float dist = partial;
          for (std::size_t c = 1; c < columns.size(); ++c) dist += columns[c][group.args[c][i]];
          best.push(dist, group.ids[i]);
        }
      }
    }
    for (const ann::Scored& b : best.sorted()) found[q].push_back(b.id);
  }
  return found;
}

}  // namespace ntp
