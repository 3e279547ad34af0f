// ntp/prover/scoring.cpp: the proof paths' scores (see prover.h, phase 2):
//     score(goal) = max_paths min_{(a,b) in path} k(θ_a, θ_b),
// on the tape (training) and in plain doubles (evaluation, explanations).
// The kernel k itself is ad::rbf_of_squared_distance.
#include "ntp/prover/prover.h"

#include "ntp/model/conditional.h"
#include "ntp/model/rule_attention.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace ntp {

namespace {

enum : int { kPredicateTable = 0, kConstantTable = 1 };

// Where the comparisons' kernels go: each table's compared rows (a, b), and
// each comparison's row in the kernel column, predicate-table ones first.
struct KernelLayout {
  std::vector<ad::Index> rows_a[2], rows_b[2];  // [table]
  std::vector<ad::Index> position;              // (comparisons)
};

KernelLayout layout_kernels(const ProofBatch& batch) {
  KernelLayout layout;
  layout.position.resize(batch.comparisons.size());
  for (std::size_t i = 0; i < batch.comparisons.size(); ++i) {
    const Comparison& c = batch.comparisons[i];
    const int table = c.table == Table::Predicate ? kPredicateTable : kConstantTable;
    layout.position[i] = static_cast<ad::Index>(layout.rows_a[table].size());
    layout.rows_a[table].push_back(c.a);
    layout.rows_b[table].push_back(c.b);
  }
  const ad::Index num_predicate = static_cast<ad::Index>(layout.rows_a[kPredicateTable].size());
  for (std::size_t i = 0; i < batch.comparisons.size(); ++i)
    if (batch.comparisons[i].table == Table::Constant) layout.position[i] += num_predicate;
  return layout;
}

// (n, 1): the kernels between rows_a[i] and rows_b[i] of one table. Each
// distinct row is gathered once, and the kernels read the rows through
// indices, never materialising (n, d) copies.
ad::Var table_kernels(ad::Tape& t, ad::Parameter& table, std::vector<ad::Index> rows_a, std::vector<ad::Index> rows_b) {
  std::unordered_map<ad::Index, ad::Index> local;  // table row -> row of `used`
  std::vector<ad::Index> used;
  auto local_row = [&](ad::Index row) {
    auto [it, added] = local.emplace(row, static_cast<ad::Index>(used.size()));
    if (added) used.push_back(row);
    return it->second;
  };
  for (ad::Index& r : rows_a) r = local_row(r);
  for (ad::Index& r : rows_b) r = local_row(r);
  const ad::Var embeddings = ad::gather(t, table, used);  // (distinct rows, d)
  return ad::rbf_kernel_rows(t, embeddings, rows_a, embeddings, rows_b);
}

// (n, 1): the kernels between rows_a[i] and rows_b[i] of the predicate
// table `predicates` holds on the tape.
ad::Var computed_table_kernels(ad::Tape& t, const PartialTable& predicates, const std::vector<ad::Index>& rows_a,
                               const std::vector<ad::Index>& rows_b) {
  auto position = [&](ad::Index r) {
    const ad::Index at = predicates.position[static_cast<std::size_t>(r)];
    if (at < 0) throw std::logic_error("score_goals: predicate row " + std::to_string(r) + " is not in the given table");
    return at;
  };
  std::vector<ad::Index> a, b;
  for (ad::Index r : rows_a) a.push_back(position(r));
  for (ad::Index r : rows_b) b.push_back(position(r));
  return ad::rbf_kernel_rows(t, predicates.table, a, predicates.table, b);
}

// (comparisons + 1, 1): every distinct comparison's kernel, at its
// layout.position, then a 0 (the score of a goal with no path).
// `computed`: the predicate table already on the tape, or null to compute
// the rows read here when slots or conditioned rows need it.
ad::Var kernels_on_tape(ad::Tape& t, Model& model, const KernelLayout& layout, const PartialTable* computed) {
  std::vector<ad::Var> parts;
  const std::vector<ad::Index>& predicate_a = layout.rows_a[kPredicateTable];
  const std::vector<ad::Index>& predicate_b = layout.rows_b[kPredicateTable];
  if (!predicate_a.empty() && computed != nullptr) {
    parts.push_back(computed_table_kernels(t, *computed, predicate_a, predicate_b));
  } else if (!predicate_a.empty() && (has_rule_attention(model) || has_conditioning(model))) {
    // Slots are mixes of the KB predicates, or rows are computed from the
    // goal's: the rows these comparisons read, computed on the tape.
    std::vector<int> rows(predicate_a.begin(), predicate_a.end());
    rows.insert(rows.end(), predicate_b.begin(), predicate_b.end());
    parts.push_back(computed_table_kernels(t, predicate_table(t, model, rows), predicate_a, predicate_b));
  } else if (!predicate_a.empty()) {
    parts.push_back(table_kernels(t, model.predicates, predicate_a, predicate_b));
  }
  if (!layout.rows_a[kConstantTable].empty())
    parts.push_back(table_kernels(t, model.constants, layout.rows_a[kConstantTable], layout.rows_b[kConstantTable]));
  parts.push_back(t.constant(ad::Matrix::Zero(1, 1)));
  return parts.size() == 1 ? parts[0] : ad::concat_rows(t, parts);
}

// The path matrix: column j holds, for each path, the kernel-column row of
// its j-th comparison (short paths repeat their first one, which leaves the
// min unchanged); a goal without paths gets one row at `zero_row`.
// `segments` holds the rows of each goal.
struct PathMatrix {
  std::vector<std::vector<ad::Index>> columns;
  std::vector<ad::Index> segments;  // (goals)
};

PathMatrix path_matrix(const ProofBatch& batch, const std::vector<ad::Index>& position, ad::Index zero_row) {
  std::size_t longest = 1;
  for (const ProofPath& p : batch.paths) longest = std::max(longest, p.comparisons.size());
  PathMatrix m;
  m.columns.resize(longest);
  std::size_t next_path = 0;
  for (ad::Index count : batch.path_counts) {
    if (count == 0) {
      for (auto& col : m.columns) col.push_back(zero_row);
      m.segments.push_back(1);
      continue;
    }
    for (ad::Index p = 0; p < count; ++p, ++next_path) {
      const std::vector<int>& comps = batch.paths[next_path].comparisons;
      for (std::size_t j = 0; j < longest; ++j)
        m.columns[j].push_back(position[static_cast<std::size_t>(comps[j < comps.size() ? j : 0])]);
    }
    m.segments.push_back(count);
  }
  return m;
}

// score_goals' body: the kernels (their predicate rows from `computed`
// when given), the paths' mins, and each goal's max.
ad::Var score_on_tape(ad::Tape& t, Model& model, const ProofBatch& batch, double temperature,
                      const PartialTable* computed) {
  const KernelLayout layout = layout_kernels(batch);
  const ad::Var kernels = kernels_on_tape(t, model, layout, computed);
  const ad::Index zero_row = static_cast<ad::Index>(batch.comparisons.size());
  const PathMatrix matrix = path_matrix(batch, layout.position, zero_row);
  std::vector<ad::Var> gathered;
  for (const auto& col : matrix.columns) gathered.push_back(ad::gather_rows(t, kernels, col));
  const ad::Var path_scores = gathered.size() == 1 ? gathered[0] : ad::min(t, gathered);
  if (temperature > 0) return ad::segment_soft_max(t, path_scores, matrix.segments, temperature);
  return ad::segment_max(t, path_scores, matrix.segments);
}

}  // namespace

ad::Var score_goals(ad::Tape& t, Model& model, const ProofBatch& batch, double temperature) {
  return score_on_tape(t, model, batch, temperature, nullptr);
}

ad::Var score_goals(ad::Tape& t, Model& model, const ProofBatch& batch, double temperature,
                    const PartialTable& predicates) {
  return score_on_tape(t, model, batch, temperature, &predicates);
}

double squared_distance(const Model& model, const Comparison& c) {
  const ad::Matrix& table = c.table == Table::Predicate ? model.predicates.value : model.constants.value;
  return (table.row(c.a) - table.row(c.b)).squaredNorm();
}

double kernel(const Model& model, const Comparison& c) { return ad::rbf_of_squared_distance(squared_distance(model, c)); }

namespace {

// A proof path's score (the min of its kernels) and the product of its
// kernels (what proof support sums), in ProofBatch::paths order.
struct PathValue {
  double min = 1;
  double product = 1;
};

std::vector<PathValue> path_values(const Model& model, const ProofBatch& batch) {
  std::vector<double> kernels(batch.comparisons.size());
  // Threads only for work worth waking them for: a single query's handful
  // of kernels is done before a sleeping thread would start.
#pragma omp parallel for schedule(static) if (kernels.size() >= 4096)
  for (std::size_t i = 0; i < kernels.size(); ++i) kernels[i] = kernel(model, batch.comparisons[i]);
  std::vector<PathValue> values(batch.paths.size());
  for (std::size_t p = 0; p < values.size(); ++p)
    for (int c : batch.paths[p].comparisons) {
      values[p].min = std::min(values[p].min, kernels[static_cast<std::size_t>(c)]);
      values[p].product *= kernels[static_cast<std::size_t>(c)];
    }
  return values;
}

}  // namespace

std::vector<double> path_scores(const Model& model, const ProofBatch& batch) {
  std::vector<double> scores;
  scores.reserve(batch.paths.size());
  for (const PathValue& v : path_values(model, batch)) scores.push_back(v.min);
  return scores;
}

std::vector<double> score_goals(const Model& model, const ProofBatch& batch) {
  const std::vector<double> paths = path_scores(model, batch);
  std::vector<double> scores;
  std::size_t next_path = 0;
  for (ad::Index count : batch.path_counts) {
    double best = 0;
    for (ad::Index p = 0; p < count; ++p, ++next_path) best = std::max(best, paths[next_path]);
    scores.push_back(best);
  }
  return scores;
}

GoalScores score_goals_with_support(const Model& model, const ProofBatch& batch) {
  const std::vector<PathValue> paths = path_values(model, batch);
  GoalScores scores;
  std::size_t next_path = 0;
  for (ad::Index count : batch.path_counts) {
    double best = 0, support = 0;
    for (ad::Index p = 0; p < count; ++p, ++next_path) {
      best = std::max(best, paths[next_path].min);
      support += paths[next_path].product;
    }
    scores.best.push_back(best);
    scores.support.push_back(support);
  }
  return scores;
}

}  // namespace ntp
