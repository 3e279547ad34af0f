// ntp/prover/prover.cpp: symbolic proof search (unify / or / and) and differentiable
// scoring of the proof paths it finds. See prover.h for the two phases.
#include "ntp/prover/prover.h"

#include "ntp/model/rule_attention.h"
#include "ntp/prover/rule_selection.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <omp.h>
#include <stdexcept>
#include <unordered_map>

namespace ntp {

namespace {

// Terms inside the search: a constant id c >= 0, or a variable v encoded as
// -(v + 1). Variables are numbered per proof state; a rule's variables are
// renamed apart by appending fresh ones each time the rule is applied.
constexpr int kUnbound = -1;  // in State::binding
bool is_var(int term) { return term < 0; }
int var_of(int term) { return -term - 1; }
int var_term(int v) { return -v - 1; }

// An atom waiting to be proven: predicate row and argument terms.
struct PendingAtom {
  int predicate_row = 0;
  std::vector<int> args;
  int depth_left = 0;  // rule applications still allowed below this atom
};

// A partial proof: what is left to prove, the substitution so far, the rule
// applications still allowed, and the kernels the path has committed to.
struct State {
  int goal = 0;
  std::vector<PendingAtom> stack;   // front = next atom to prove
  std::vector<int> binding;         // (variables): a term, or kUnbound
  double score = 1;                 // exhaustive mode: min of the kernels so far
  std::vector<Comparison> comparisons;
  std::vector<ProofStep> steps;     // explain mode only
};

// Kernels between every pair of predicate rows and of constants, from the
// current embeddings: exhaustive search scores states as it goes.
struct KernelTables {
  Eigen::MatrixXd predicate, constant;
  explicit KernelTables(const Model& m) : predicate(table(m.predicates.value)), constant(table(m.constants.value)) {}
  double operator()(const Comparison& c) const { return c.table == Table::Predicate ? predicate(c.a, c.b) : constant(c.a, c.b); }
  static Eigen::MatrixXd table(const ad::Matrix& x) {
    Eigen::MatrixXd sq = -2.0 * x * x.transpose();
    sq.colwise() += x.rowwise().squaredNorm();
    sq.rowwise() += x.rowwise().squaredNorm().transpose();
    return sq.cwiseMax(ad::kMinSquaredDistance).cwiseMin(ad::kMaxSquaredDistance).cwiseSqrt().unaryExpr([](double d) {
      return std::exp(-d);
    });
  }
};

// Follows variable bindings until a constant or an unbound variable.
int deref(const State& s, int term) {
  while (is_var(term)) {
    const int bound = s.binding[static_cast<std::size_t>(var_of(term))];
    if (bound == kUnbound) return term;
    term = bound;
  }
  return term;
}

// Unifies two argument terms: binds a variable, or records the kernel
// between two constants (soft unification never fails outright).
void unify_terms(State& s, int x, int y, std::vector<Comparison>& step) {
  x = deref(s, x);
  y = deref(s, y);
  if (is_var(x)) {
    if (x != y) s.binding[static_cast<std::size_t>(var_of(x))] = y;
  } else if (is_var(y)) {
    s.binding[static_cast<std::size_t>(var_of(y))] = x;
  } else {
    step.push_back({Table::Constant, x, y});
  }
}

Atom resolved_atom(const State& s, const PendingAtom& a) {
  Atom out;
  out.predicate = a.predicate_row;
  for (int t : a.args) {
    const int d = deref(s, t);
    out.args.push_back(is_var(d) ? -1 : d);
  }
  return out;
}

void commit_step(State& s, bool explain, const PendingAtom& atom, bool by_rule, int id, int depth,
                 std::vector<Comparison>& step, const KernelTables* kernels) {
  if (kernels)
    for (const Comparison& c : step) s.score = std::min(s.score, (*kernels)(c));
  if (explain) s.steps.push_back({resolved_atom(s, atom), by_rule, id, depth, step});
  s.comparisons.insert(s.comparisons.end(), step.begin(), step.end());
}

// Proves `atom` (popped from s) with rule r: renames the rule apart, unifies
// its head with the atom and pushes its body in front of the remaining atoms.
State apply_rule(const Model& model, const State& s, const PendingAtom& atom, int r, int max_depth, bool explain,
                 const KernelTables* kernels) {
  const Rule& rule = model.rules[static_cast<std::size_t>(r)];
  State child = s;
  child.stack.erase(child.stack.begin());
  const int offset = static_cast<int>(child.binding.size());
  child.binding.resize(child.binding.size() + static_cast<std::size_t>(rule.num_variables), kUnbound);
  auto rename = [&](const Term& t) { return t.is_variable ? var_term(offset + t.id) : t.id; };

  std::vector<Comparison> step{{Table::Predicate, atom.predicate_row, rule.head.predicate.id}};
  for (std::size_t i = 0; i < atom.args.size(); ++i) unify_terms(child, rename(rule.head.args[i]), atom.args[i], step);
  std::vector<PendingAtom> body;
  for (const RuleAtom& b : rule.body) {
    PendingAtom p{b.predicate.id, {}, atom.depth_left - 1};  // siblings keep their own depth, as in NTP's `and`
    for (const Term& t : b.args) p.args.push_back(rename(t));
    body.push_back(std::move(p));
  }
  child.stack.insert(child.stack.begin(), body.begin(), body.end());
  commit_step(child, explain, atom, true, r, max_depth - atom.depth_left, step, kernels);
  return child;
}

// Proves `atom` (popped from s) with fact f.
State apply_fact(const Model& model, const State& s, const PendingAtom& atom, int f, int max_depth, bool explain,
                 const KernelTables* kernels) {
  const Atom& fact = model.kb.facts[static_cast<std::size_t>(f)];
  State child = s;
  child.stack.erase(child.stack.begin());
  std::vector<Comparison> step{{Table::Predicate, atom.predicate_row, fact.predicate}};
  for (std::size_t i = 0; i < atom.args.size(); ++i) unify_terms(child, atom.args[i], fact.args[i], step);
  commit_step(child, explain, atom, false, f, max_depth - atom.depth_left, step, kernels);
  return child;
}

// The score apply_fact would give, without building the child: variables of
// the atom bind to the fact's constants (a repeated one is then compared).
double fact_step_score(const State& s, const PendingAtom& atom, const Atom& fact, const KernelTables& k) {
  double score = std::min(s.score, k.predicate(atom.predicate_row, fact.predicate));
  std::pair<int, int> local[8];  // variable -> constant bound by this step
  int bound = 0;
  for (std::size_t i = 0; i < atom.args.size(); ++i) {
    int term = deref(s, atom.args[i]);
    for (int j = 0; j < bound && is_var(term); ++j)
      if (local[j].first == term) term = local[j].second;
    if (!is_var(term)) score = std::min(score, k.constant(term, fact.args[i]));
    else if (bound < 8) local[bound++] = {term, fact.args[i]};
    else throw std::invalid_argument("atoms of more than 8 arguments are not supported");
  }
  return score;
}

// What decides a state's future: its goal, remaining depth and pending atoms
// (variables renamed in order of appearance). States with equal keys have
// the same continuations, so only the best-scoring one can matter.
std::vector<int> merge_key(const State& s) {
  std::vector<int> key{s.goal};
  std::vector<int> seen;
  for (const PendingAtom& a : s.stack) {
    key.push_back(a.predicate_row);
    key.push_back(a.depth_left);
    key.push_back(static_cast<int>(a.args.size()));
    for (int t : a.args) {
      const int d = deref(s, t);
      if (!is_var(d)) { key.push_back(d); continue; }
      const auto at = std::find(seen.begin(), seen.end(), d);
      key.push_back(-1 - static_cast<int>(at - seen.begin()));
      if (at == seen.end()) seen.push_back(d);
    }
  }
  return key;
}

// Packs a comparison into one integer, for hashing (rows < 2^31).
unsigned long long comparison_key(const Comparison& c) {
  return (static_cast<unsigned long long>(c.table) << 62) | (static_cast<unsigned long long>(c.a) << 31) |
         static_cast<unsigned long long>(c.b);
}

}  // namespace

Prover::Prover(const Model& model, FactIndex& facts, ProverConfig config)
    : model_(model), facts_(facts), config_(std::move(config)) {
  if (config_.depth < 0) throw std::invalid_argument("proof depth must be >= 0");
}

namespace {

// Searches one chunk of goals. `kernels` (exhaustive mode only, else null)
// are the kernel tables shared by all chunks.
ProofBatch search_goals(const Model& model, FactIndex& facts, const ProverConfig& config,
                        const std::vector<Goal>& goals, bool explain, const KernelTables* kernels) {
  std::vector<State> live;
  std::vector<std::vector<State>> done(goals.size());
  for (std::size_t g = 0; g < goals.size(); ++g) {
    State s;
    s.goal = static_cast<int>(g);
    PendingAtom a{goals[g].atom.predicate, {}, config.depth};
    for (int arg : goals[g].atom.args) {
      if (arg >= 0) { a.args.push_back(arg); continue; }
      a.args.push_back(var_term(static_cast<int>(s.binding.size())));  // a query variable
      s.binding.push_back(kUnbound);
    }
    s.stack.push_back(std::move(a));
    live.push_back(std::move(s));
  }

  // Exhaustive NTP (k_facts = 0) does not build every proof path: a query's
  // score and its gradient (max and min route it to one path) are those of
  // its best path, which branch and bound finds exactly: states are scored as
  // they grow, equivalent states merged, and anything that cannot beat the
  // goal's best finished proof dropped. Explanations keep every path.
  std::vector<double> best(goals.size(), 0.0);  // score of each goal's best finished path

  std::unordered_map<long long, std::vector<int>> rules_for;  // (row, arity) -> rules
  while (!live.empty()) {
    // One round: every live state proves its first pending atom by `or`.
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
      std::vector<std::vector<int>> found = facts.nearest(batch, config.k_facts);
      for (std::size_t j = 0; j < members.size(); ++j) facts_of[members[j]] = std::move(found[j]);
    }

    std::vector<State> next;
    std::unordered_map<std::vector<int>, std::size_t, VectorHash> merged;  // exhaustive: key -> index in next
    auto keep = [&](State&& c) {
      const std::size_t g = static_cast<std::size_t>(c.goal);
      if (!kernels) {  // top-k: every path is kept, and scored on the tape
        (c.stack.empty() ? done[g] : next).push_back(std::move(c));
      } else if (c.stack.empty()) {  // exhaustive: only a goal's best finished path
        if (c.score > best[g]) { best[g] = c.score; done[g] = {std::move(c)}; }
      } else if (c.score > best[g]) {  // a state can only lose score: prune those below the best
        auto [it, added] = merged.emplace(merge_key(c), next.size());
        if (added) next.push_back(std::move(c));
        else if (c.score > next[it->second].score) next[it->second] = std::move(c);
      }
    };
    for (std::size_t i = 0; i < live.size(); ++i) {
      const State& s = live[i];
      if (kernels && s.score <= best[static_cast<std::size_t>(s.goal)]) continue;
      const PendingAtom atom = s.stack.front();
      for (int f : facts_of[i]) {
        if (kernels && fact_step_score(s, atom, model.kb.facts[static_cast<std::size_t>(f)], *kernels) <=
                           best[static_cast<std::size_t>(s.goal)])
          continue;  // cannot beat the goal's best proof: do not build it
        keep(apply_fact(model, s, atom, f, config.depth, explain, kernels));
      }
      if (atom.depth_left > 0) {
        const int arity = static_cast<int>(atom.args.size());
        const long long key = static_cast<long long>(atom.predicate_row) * 1024 + arity;  // arity < 1024
        auto it = rules_for.find(key);
        if (it == rules_for.end())
          it = rules_for.emplace(key, nearest_rules(model, atom.predicate_row, arity, config.k_rules)).first;
        for (int r : it->second) keep(apply_rule(model, s, atom, r, config.depth, explain, kernels));
      }
    }
    if (kernels)  // best-scoring states first, so that the bound tightens early
      std::stable_sort(next.begin(), next.end(), [](const State& a, const State& b) { return a.score > b.score; });
    live = std::move(next);
  }

  // Number the distinct comparisons and lay the paths out goal by goal.
  ProofBatch batch;
  std::unordered_map<unsigned long long, int> ids;
  for (std::size_t g = 0; g < goals.size(); ++g) {
    batch.path_counts.push_back(static_cast<ad::Index>(done[g].size()));
    for (State& s : done[g]) {
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

// The chunks' batches as one: goals in chunk order, comparisons merged into
// one distinct list (each chunk numbered its own from 0).
ProofBatch merge(std::vector<ProofBatch>& parts) {
  ProofBatch into = std::move(parts[0]);
  std::unordered_map<unsigned long long, int> ids;
  for (std::size_t i = 0; i < into.comparisons.size(); ++i) ids.emplace(comparison_key(into.comparisons[i]), static_cast<int>(i));
  for (std::size_t part = 1; part < parts.size(); ++part) {
    ProofBatch& from = parts[part];
    std::vector<int> renumber(from.comparisons.size());
    for (std::size_t i = 0; i < from.comparisons.size(); ++i) {
      auto [it, added] = ids.emplace(comparison_key(from.comparisons[i]), static_cast<int>(into.comparisons.size()));
      if (added) into.comparisons.push_back(from.comparisons[i]);
      renumber[i] = it->second;
    }
    for (ProofPath& p : from.paths) {
      for (int& c : p.comparisons) c = renumber[static_cast<std::size_t>(c)];
      into.paths.push_back(std::move(p));
    }
    into.path_counts.insert(into.path_counts.end(), from.path_counts.begin(), from.path_counts.end());
  }
  return into;
}

}  // namespace

ProofBatch Prover::search(const std::vector<Goal>& goals, bool explain) const {
  // Exhaustive search scores states as it goes, from kernel tables computed
  // once here and shared (read-only) by every chunk. Explanations keep every
  // path and need none.
  std::unique_ptr<KernelTables> tables;
  if (config_.k_facts <= 0 && !explain) tables = std::make_unique<KernelTables>(model_);
  const KernelTables* kernels = tables.get();
  // Goals are independent: one contiguous chunk per thread. Small batches and
  // explanations stay on one thread.
  const int threads = omp_get_max_threads();
  constexpr std::size_t kMinGoalsPerChunk = 16;
  if (explain || threads < 2 || goals.size() < 2 * kMinGoalsPerChunk) return search_goals(model_, facts_, config_, goals, explain, kernels);
  const std::size_t chunks = std::min(static_cast<std::size_t>(threads), goals.size() / kMinGoalsPerChunk);
  std::vector<ProofBatch> parts(chunks);
  std::vector<std::exception_ptr> errors(chunks);  // an exception must not leave an OpenMP region
#pragma omp parallel for schedule(static, 1)
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t begin = goals.size() * c / chunks, end = goals.size() * (c + 1) / chunks;
    try {
      parts[c] = search_goals(model_, facts_, config_,
                              std::vector<Goal>(goals.begin() + static_cast<std::ptrdiff_t>(begin),
                                                goals.begin() + static_cast<std::ptrdiff_t>(end)),
                              false, kernels);
    } catch (...) {
      errors[c] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return merge(parts);
}

ad::Var score_goals(ad::Tape& t, Model& model, const ProofBatch& batch, double temperature) {
  // Kernels of all distinct comparisons, predicate-table ones first: (n, 1).
  std::vector<ad::Index> rows_a[2], rows_b[2];
  std::vector<ad::Index> position(batch.comparisons.size());
  for (std::size_t i = 0; i < batch.comparisons.size(); ++i) {
    const Comparison& c = batch.comparisons[i];
    const int table = c.table == Table::Predicate ? 0 : 1;
    position[i] = static_cast<ad::Index>(rows_a[table].size());
    rows_a[table].push_back(c.a);
    rows_b[table].push_back(c.b);
  }
  const ad::Index num_predicate = static_cast<ad::Index>(rows_a[0].size());
  for (std::size_t i = 0; i < batch.comparisons.size(); ++i)
    if (batch.comparisons[i].table == Table::Constant) position[i] += num_predicate;

  // Each table's rows are gathered once (each distinct row once), and the
  // kernels read them through indices, never materialising (n, d) copies.
  std::vector<ad::Var> parts;
  ad::Parameter* tables[2] = {&model.predicates, &model.constants};
  for (int table = 0; table < 2; ++table) {
    if (rows_a[table].empty()) continue;
    if (table == 0 && has_rule_attention(model)) {  // slots are mixes of the KB predicates: all rows, by table row
      const ad::Var predicates = attended_predicate_table(t, model);  // (P + S, d)
      parts.push_back(ad::rbf_kernel_rows(t, predicates, rows_a[0], predicates, rows_b[0]));
      continue;
    }
    std::unordered_map<ad::Index, ad::Index> local;  // table row -> row of `used`
    std::vector<ad::Index> used;
    auto local_row = [&](ad::Index row) {
      auto [it, added] = local.emplace(row, static_cast<ad::Index>(used.size()));
      if (added) used.push_back(row);
      return it->second;
    };
    for (ad::Index& r : rows_a[table]) r = local_row(r);
    for (ad::Index& r : rows_b[table]) r = local_row(r);
    const ad::Var embeddings = ad::gather(t, *tables[table], used);  // (distinct rows, d)
    parts.push_back(ad::rbf_kernel_rows(t, embeddings, rows_a[table], embeddings, rows_b[table]));
  }
  const ad::Index zero_row = static_cast<ad::Index>(batch.comparisons.size());
  parts.push_back(t.constant(ad::Matrix::Zero(1, 1)));  // the score of a goal with no path
  const ad::Var kernels = parts.size() == 1 ? parts[0] : ad::concat_rows(t, parts);

  // Path matrix: column j holds each path's j-th kernel (short paths repeat
  // their first one, which leaves the min unchanged): min over columns.
  std::size_t longest = 1;
  for (const ProofPath& p : batch.paths) longest = std::max(longest, p.comparisons.size());
  std::vector<std::vector<ad::Index>> columns(longest);
  std::vector<ad::Index> segments;
  std::size_t next_path = 0;
  for (ad::Index count : batch.path_counts) {
    if (count == 0) {
      for (auto& col : columns) col.push_back(zero_row);
      segments.push_back(1);
      continue;
    }
    for (ad::Index p = 0; p < count; ++p, ++next_path) {
      const std::vector<int>& comps = batch.paths[next_path].comparisons;
      for (std::size_t j = 0; j < longest; ++j)
        columns[j].push_back(position[static_cast<std::size_t>(comps[j < comps.size() ? j : 0])]);
    }
    segments.push_back(count);
  }
  std::vector<ad::Var> gathered;
  for (const auto& col : columns) gathered.push_back(ad::gather_rows(t, kernels, col));
  const ad::Var path_scores = gathered.size() == 1 ? gathered[0] : ad::min(t, gathered);
  if (temperature > 0) return ad::segment_soft_max(t, path_scores, segments, temperature);
  return ad::segment_max(t, path_scores, segments);
}

double kernel(const Model& model, const Comparison& c) {
  const ad::Matrix& table = c.table == Table::Predicate ? model.predicates.value : model.constants.value;
  const double sq = (table.row(c.a) - table.row(c.b)).squaredNorm();
  return std::exp(-std::sqrt(std::clamp(sq, ad::kMinSquaredDistance, ad::kMaxSquaredDistance)));
}

namespace {

// A proof path's score (the min of its kernels) and the product of its
// kernels (what proof support sums), in ProofBatch::paths order.
struct PathValue {
  double min = 1;
  double product = 1;
};

std::vector<PathValue> path_values(const Model& model, const ProofBatch& batch) {
  std::vector<double> kernels(batch.comparisons.size());
#pragma omp parallel for schedule(static)
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
