// ntp/selector.cpp: fact selection by nearest keys (see selector.h).
#include "ntp/selector.h"

#include "ann/top_k.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ntp {

namespace {

// Constant tables above this many entries (C x C floats) are not built: "auto"
// switches to an ANN index instead. 64M floats = 256 MiB (C up to 8,192).
constexpr double kMaxTableEntries = 64.0 * 1024 * 1024;
// Constants sorted by distance from each constant: C x C ints, rebuilt with
// the tables. Up to 4,096 constants (64 MiB); beyond, searches scan groups.
constexpr int kMaxSortedConstants = 4096;

// Squared distances between the rows of a (n, d) and b (m, d): (n, m).
Eigen::MatrixXf squared_distances(const ad::Matrix& a, const ad::Matrix& b) {
  const Eigen::MatrixXf af = a.cast<float>(), bf = b.cast<float>();
  Eigen::MatrixXf d = -2.0f * af * bf.transpose();
  d.colwise() += af.rowwise().squaredNorm();
  d.rowwise() += bf.rowwise().squaredNorm().transpose();
  return d.cwiseMax(0.0f);
}

// Keeps the k smallest (distance, id) pairs, nearest first, ties by id.
std::vector<int> smallest(std::vector<std::pair<float, int>>& scored, std::size_t k) {
  k = std::min(k, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(k), scored.end());
  std::vector<int> ids(k);
  for (std::size_t i = 0; i < k; ++i) ids[i] = scored[i].second;
  return ids;
}

// Writes one search key, [θ_predicate ; θ_arg at each ground position], as floats.
void write_key(const Model& m, int predicate_row, const std::vector<int>& args, const std::vector<int>& ground,
               Eigen::Ref<Eigen::RowVectorXf> key) {
  const Eigen::Index d = m.dim;
  key.head(d) = m.predicates.value.row(predicate_row).cast<float>();
  for (std::size_t g = 0; g < ground.size(); ++g)
    key.segment(d * static_cast<Eigen::Index>(1 + g), d) =
        m.constants.value.row(args[static_cast<std::size_t>(ground[g])]).cast<float>();
}

}  // namespace

struct FactSelector::Pattern {
  int arity = 0;
  std::vector<int> ground;           // argument positions compared
  std::vector<int> fact_ids;         // facts of this arity; row r of the index is fact_ids[r]
  // Table kind: the facts of each KB predicate, and their arguments at the
  // ground positions, laid out column by column for a tight scan.
  struct Group {
    std::vector<int> ids;                 // (facts of this predicate)
    std::vector<std::vector<int>> args;   // (ground positions, facts)
    // The group's facts bucketed by the constant at the first ground
    // position: facts by_first[offsets[c] .. offsets[c + 1]) have constant c there.
    std::vector<int> first_offsets;       // (C + 1)
    std::vector<int> by_first;            // (facts), indices into ids
  };
  std::vector<Group> by_predicate;        // (P)
  std::unique_ptr<ann::Index> index; // ANN kinds only
};

bool is_selector_kind(const std::string& kind) {
  return kind == "auto" || kind == "table" || kind == "brute" || kind == "kdtree" || kind == "hnsw";
}

FactSelector::FactSelector(const Model& model, std::string kind) : model_(model), kind_(std::move(kind)) {
  if (!is_selector_kind(kind_))
    throw std::invalid_argument("unknown fact index '" + kind_ + "' (expected auto, table, brute, kdtree or hnsw)");
  // "auto": the exact table when it fits; otherwise the ANN family's own
  // "auto", which picks kdtree, brute or hnsw per pattern from n and d.
  const double c = model_.kb.constants.size();
  if (kind_ == "auto" && c * c <= kMaxTableEntries) kind_ = "table";
}

FactSelector::~FactSelector() = default;

void FactSelector::refresh() {
  patterns_.clear();
  tables_ready_ = false;
}

void FactSelector::build_tables() {
  const ad::Matrix kb_predicates = model_.predicates.value.topRows(model_.num_kb_predicates);
  predicate_sq_ = squared_distances(model_.predicates.value, kb_predicates);
  constant_sq_ = squared_distances(model_.constants.value, model_.constants.value);
  predicates_by_distance_.assign(static_cast<std::size_t>(predicate_sq_.rows()), {});
  for (Eigen::Index row = 0; row < predicate_sq_.rows(); ++row) {
    auto& groups = predicates_by_distance_[static_cast<std::size_t>(row)];
    for (Eigen::Index g = 0; g < predicate_sq_.cols(); ++g) groups.emplace_back(predicate_sq_(row, g), static_cast<int>(g));
    std::sort(groups.begin(), groups.end());
  }
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

FactSelector::Pattern& FactSelector::pattern_for(const FactQuery& q) {
  std::vector<int> key{static_cast<int>(q.args.size())};
  for (std::size_t i = 0; i < q.args.size(); ++i)
    if (q.args[i] >= 0) key.push_back(static_cast<int>(i));
  auto found = patterns_.find(key);
  if (found != patterns_.end()) return *found->second;

  auto p = std::make_unique<Pattern>();
  p->arity = key[0];
  p->ground.assign(key.begin() + 1, key.end());
  const std::vector<Atom>& facts = model_.kb.facts;
  p->by_predicate.resize(static_cast<std::size_t>(model_.num_kb_predicates));
  for (std::size_t f = 0; f < facts.size(); ++f)
    if (static_cast<int>(facts[f].args.size()) == p->arity) {
      p->fact_ids.push_back(static_cast<int>(f));
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

std::vector<std::vector<int>> FactSelector::nearest(const std::vector<FactQuery>& queries, int k) {
  std::vector<std::vector<int>> out(queries.size());
  if (queries.empty()) return out;
  std::unique_lock<std::mutex> lock(build_mutex_);
  Pattern& p = pattern_for(queries.front());
  if (k <= 0 || k >= static_cast<int>(p.fact_ids.size())) {  // exhaustive, or k covers every fact
    for (std::size_t q = 0; q < queries.size(); ++q) {
      for (int f : p.fact_ids)
        if (f != queries[q].masked_fact) out[q].push_back(f);
    }
    return out;
  }
  const std::size_t want = static_cast<std::size_t>(k) + 1;  // one spare, for the masked fact
  std::vector<std::vector<int>> found(queries.size());

  if (kind_ == "table") {
    if (!tables_ready_) build_tables();
    lock.unlock();
    // Facts are visited one predicate group at a time, nearest predicate
    // first; once the predicate distance alone exceeds the current k-th best
    // total, no later group can contribute (all distances are >= 0).
#pragma omp parallel for schedule(dynamic, 16)
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const FactQuery& query = queries[q];
      const std::vector<std::pair<float, int>>& groups = predicates_by_distance_[static_cast<std::size_t>(query.predicate_row)];
      // constant_sq_ is symmetric and column-major: column c holds the
      // distances from constant c to every constant, contiguously.
      std::vector<const float*> columns;
      for (int a : p.ground) columns.push_back(&constant_sq_(0, query.args[static_cast<std::size_t>(a)]));
      ann::TopK best;  // the `want` nearest so far
      best.reset(static_cast<int>(want));
      // Nothing at a partial distance above the k-th best can enter (ties
      // still can: they are ordered by fact id).
      auto pruned = [&](float partial) { return partial > best.bound(); };
      // Walking outwards from the goal's first ground constant needs the
      // sorted constants; without them (huge vocabularies) each group is scanned.
      const std::vector<int>* outward =
          columns.empty() || constants_by_distance_.empty()
              ? nullptr
              : &constants_by_distance_[static_cast<std::size_t>(query.args[static_cast<std::size_t>(p.ground[0])])];
      for (const auto& [predicate_dist, g] : groups) {
        if (pruned(predicate_dist)) break;
        const Pattern::Group& group = p.by_predicate[static_cast<std::size_t>(g)];
        if (outward == nullptr) {
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
  } else {
    const Eigen::Index width = model_.dim * static_cast<Eigen::Index>(1 + p.ground.size());
    if (!p.index) {  // built on first use, from the embeddings of now
      ann::RowMatrix fact_keys(static_cast<Eigen::Index>(p.fact_ids.size()), width);
      for (std::size_t r = 0; r < p.fact_ids.size(); ++r) {
        const Atom& f = model_.kb.facts[static_cast<std::size_t>(p.fact_ids[r])];
        write_key(model_, f.predicate, f.args, p.ground, fact_keys.row(static_cast<Eigen::Index>(r)));
      }
      p.index = ann::make_index(kind_, static_cast<int>(fact_keys.rows()), static_cast<int>(width));
      p.index->build(fact_keys);
    }
    lock.unlock();
    ann::RowMatrix keys(static_cast<Eigen::Index>(queries.size()), width);
    for (std::size_t q = 0; q < queries.size(); ++q)
      write_key(model_, queries[q].predicate_row, queries[q].args, p.ground, keys.row(static_cast<Eigen::Index>(q)));
    const ann::Neighbours nb = p.index->search(keys, static_cast<int>(want));
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (int j = 0; j < nb.k; ++j) found[q].push_back(p.fact_ids[static_cast<std::size_t>(nb.ids[q * static_cast<std::size_t>(nb.k) + static_cast<std::size_t>(j)])]);
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (int f : found[q])
      if (f != queries[q].masked_fact && static_cast<int>(out[q].size()) < k) out[q].push_back(f);
  }
  return out;
}

std::vector<int> nearest_rules(const Model& model, int row, int arity, int k) {
  std::vector<std::pair<float, int>> scored;
  const auto goal = model.predicates.value.row(row);
  for (std::size_t r = 0; r < model.rules.size(); ++r) {
    const RuleAtom& head = model.rules[r].head;
    if (static_cast<int>(head.args.size()) != arity) continue;
    const float dist = k > 0 ? static_cast<float>((model.predicates.value.row(head.predicate.id) - goal).squaredNorm()) : 0.0f;
    scored.emplace_back(dist, static_cast<int>(r));
  }
  if (k <= 0) {
    std::vector<int> all;
    for (const auto& s : scored) all.push_back(s.second);
    return all;
  }
  return smallest(scored, static_cast<std::size_t>(k));
}

}  // namespace ntp
