// ntp/index/constant_index.cpp: fact search per constant tuple and predicate group
// (see constant_index.h).
#include "ntp/index/constant_index.h"

#include "ann/brute_force.h"
#include "ann/hnsw.h"
#include "ann/kd_tree.h"
#include "ann/top_k.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>

namespace ntp {

namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
// Steps between relinking the moved constants of an HNSW graph, unless
// FactIndexOptions::update_every says otherwise (docs/RESULTS.md measures
// the choice on WN11).
constexpr int kDefaultRelinkEvery = 10000;
// Nearest constants listed per constant for exact look-ups: ranking WN18RR,
// most look-ups of corrupted goals certify within 256 (wider ones are a scan
// of every constant); 8 bytes each, 84 MB for WN18RR's 40,943 constants.
constexpr int kListed = 256;

float squared_distance(const ann::RowMatrix& points, int a, int b) {
  return (points.row(a) - points.row(b)).squaredNorm();
}

// d(θ_p, θ_g) for one query predicate row p and each KB predicate g, and its
// minimum over g (for certification).
struct PredicateDistances {
  std::vector<float> to_group;  // (P)
  float nearest = kInfinity;
};
using PredicateTable = std::unordered_map<int, PredicateDistances>;  // predicate row -> its distances

PredicateTable predicate_distances(const Model& model, const std::vector<FactQuery>& queries) {
  PredicateTable table;
  for (const FactQuery& q : queries) {
    auto [it, added] = table.try_emplace(q.predicate_row);
    if (!added) continue;
    for (int g = 0; g < model.num_kb_predicates; ++g) {
      const float d = static_cast<float>(
          (model.predicates.value.row(q.predicate_row) - model.predicates.value.row(g)).squaredNorm());
      it->second.to_group.push_back(d);
      it->second.nearest = std::min(it->second.nearest, d);
    }
  }
  return table;
}

// Marks on ids (the facts a tuple's search has pushed; the constants it has
// gathered at one position), so that each is taken once. One array per
// thread and use, as long as the ids and kept across searches: each search
// takes a new stamp, and stamps only grow, so an old mark never equals the
// current one.
class Marks {
 public:
  // This thread's marks number `which`, for ids below `size`, with a fresh stamp.
  static Marks& of_this_thread(std::size_t which, std::size_t size) {
    thread_local std::deque<Marks> pool;  // a deque: growing it keeps the earlier ones where they are
    if (pool.size() <= which) pool.resize(which + 1);
    Marks& marks = pool[which];
    if (marks.seen_.size() < size) marks.seen_.resize(size, 0u);
    if (++marks.stamp_ == 0) {  // wrapped: forget every mark
      std::fill(marks.seen_.begin(), marks.seen_.end(), 0u);
      marks.stamp_ = 1;
    }
    return marks;
  }
  // True the first time id is seen under the current stamp.
  bool first_visit(int id) {
    unsigned& mark = seen_[static_cast<std::size_t>(id)];
    if (mark == stamp_) return false;
    mark = stamp_;
    return true;
  }

 private:
  std::vector<unsigned> seen_;
  unsigned stamp_ = 0;
};

// The squared distance from each constant that many tuples of one search
// share (ranking p(s, ?) asks p(s, c) and q(c, s) for thousands of c) to
// every constant, computed once by the same squared_distance as the
// candidates' (so the same bits): gathering a hub's facts then costs a
// look-up per fact instead of a distance.
class SharedDistances {
 public:
  // Tuples that must share a constant before its row is worth computing (a
  // row costs C distances; a tuple's gather, tens to thousands).
  static constexpr std::size_t kMinTuples = 32;

  SharedDistances(const ann::RowMatrix& points, const std::vector<int>& shared) : constants_(shared) {
    rows_.resize(shared.size());
#pragma omp parallel for schedule(dynamic, 1) if (shared.size() > 1)
    for (std::size_t i = 0; i < shared.size(); ++i) {
      rows_[i].resize(static_cast<std::size_t>(points.rows()));
      for (Eigen::Index c = 0; c < points.rows(); ++c)
        rows_[i][static_cast<std::size_t>(c)] = squared_distance(points, shared[i], static_cast<int>(c));
    }
  }
  // Constant a's row (its squared distance to every constant), or nullptr.
  const float* row(int a) const {
    const auto at = std::lower_bound(constants_.begin(), constants_.end(), a);
    return at != constants_.end() && *at == a ? rows_[static_cast<std::size_t>(at - constants_.begin())].data() : nullptr;
  }

 private:
  std::vector<int> constants_;          // ascending
  std::vector<std::vector<float>> rows_;  // (constants_, C)
};

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
  for (int f : adj.facts) {
    const Atom& fact = model_.kb.facts[static_cast<std::size_t>(f)];
    adj.predicates.push_back(fact.predicate);
    adj.args.insert(adj.args.end(), fact.args.begin(), fact.args.end());
  }
  return adj;
}

// The queries of one search() that share their constants at the ground
// positions (their tuple): one search serves them all.
struct ConstantIndex::TupleQueries {
  std::vector<int> constants;        // (ground positions)
  std::vector<std::size_t> members;  // indices into the queries

  // The queries grouped by tuple, in tuple order.
  static std::vector<TupleQueries> group(const std::vector<FactQuery>& queries, const std::vector<int>& ground) {
    std::map<std::vector<int>, std::vector<std::size_t>> by_tuple;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      std::vector<int> tuple;
      for (int i : ground) tuple.push_back(queries[q].args[static_cast<std::size_t>(i)]);
      by_tuple[tuple].push_back(q);
    }
    std::vector<TupleQueries> tuples;
    for (auto& [tuple, members] : by_tuple) tuples.push_back({tuple, std::move(members)});
    return tuples;
  }

  // The constants found in at least `min_tuples` of the tuples, ascending.
  static std::vector<int> shared_by(const std::vector<TupleQueries>& tuples, std::size_t min_tuples) {
    if (tuples.size() < min_tuples) return {};
    std::unordered_map<int, std::size_t> count;
    for (const TupleQueries& t : tuples)
      for (int c : t.constants) ++count[c];
    std::vector<int> shared;
    for (const auto& [c, n] : count)
      if (n >= min_tuples) shared.push_back(c);
    std::sort(shared.begin(), shared.end());
    return shared;
  }
};

// Where a tuple's candidate facts come from. gather() pushes each candidate
// with its cd into the search's groups, looking up `neighbours` constants
// per ground position when it uses the graph, and returns a bound on the cd
// of every fact it did not push (infinity: it pushed them all).
struct ConstantIndex::CandidateSource {
  virtual ~CandidateSource() = default;
  virtual float gather(TupleSearch& s, const std::vector<int>& tuple, int neighbours) const = 0;
};

// One constant tuple's search, in three steps: gather candidate facts (a
// CandidateSource), rank them for each query of the tuple, and widen the
// look-up while some answer is not certified. Holds one thread's scratch,
// reused from tuple to tuple.
struct ConstantIndex::TupleSearch {
  ConstantIndex& index;
  const std::vector<int>& ground;  // argument positions compared
  int arity;
  int want;
  std::vector<ann::TopK> groups;                  // (P): facts of each KB predicate, smallest cd first
  std::vector<std::vector<ann::Scored>> sorted;   // (P): the same, sorted
  Eigen::VectorXf distances;                      // scan: (C) d(θ_tuple[i], θ_c) for one position
  std::vector<Neighbourhood> wider;               // (ground): look-ups wider than the first
  std::vector<const Neighbourhood*> near;         // (ground): the look-up in use at each position
  const SharedDistances& shared;
  std::vector<const float*> shared_rows;          // (ground): the tuple's constant's row there, or nullptr
  Marks* pushed = nullptr;                        // the facts this tuple's search has pushed
  std::vector<Marks*> gathered;                   // (ground): the constants whose facts it has gathered there
  std::vector<std::size_t> upto;                  // (ground): how many of near[i]'s constants candidates_near has gathered
  std::vector<std::vector<long long>> held_before;  // (ground, near[i] + 1): facts held by near[i]'s first n constants
  struct Asked {                                  // the tuple being searched, set by run()
    const TupleQueries* tuple = nullptr;
    const std::vector<FactQuery>* queries = nullptr;
    const PredicateTable* predicates = nullptr;
  } asked;
  std::vector<int> scratch_found;                 // all_certified's answers, not kept
  // Pruning, exact: a fact of group g whose cd exceeds limits[g] is farther,
  // for every query of the tuple, than `want` facts already gathered, so it
  // is never pushed (nor its other distances computed).
  //   reach[q]  >= query q's want-th nearest so far: pd_q(g) + the worst of
  //             any full group g (the group alone holds `want` within it)
  //   limits[g] =  max_q (reach[q] - pd_q(g)), plus a slack for rounding
  std::vector<float> member_to_group;  // (P, members) row-major: each member query's pd to each group
  std::size_t members = 0;
  std::vector<float> reach;            // (members)
  std::vector<float> limits;           // (P)
  float widest_limit = kInfinity;      // max over limits
  int pushes_since_limits = 0;
  bool limits_stale = false;           // reach has fallen since limits were set

  TupleSearch(ConstantIndex& idx, const std::vector<int>& g, int a, int w, const SharedDistances& sd)
      : index(idx), ground(g), arity(a), want(w), groups(static_cast<std::size_t>(idx.model_.num_kb_predicates)),
        sorted(groups.size()), wider(g.size()), near(g.size()), shared(sd), shared_rows(g.size()),
        gathered(g.size()), upto(g.size()), held_before(g.size()) {}

  // Each query's `want` nearest facts into found[q], widening the look-up
  // (doubling the neighbours, up to the widest) until all are certified.
  void run(const CandidateSource& source, const TupleQueries& tuple, const std::vector<FactQuery>& queries,
           const PredicateTable& predicates, std::vector<std::vector<int>>& found) {
    const int widest = index.widest_lookup();
    // An exact wider look-up holds the narrower one, so it keeps what that
    // gathered and adds the facts it did not reach (the groups' ties break
    // by id: the order of visits does not matter). An HNSW look-up starts
    // afresh, as the graph may find other neighbours.
    const bool keep_gathered = index.exact();
    set_members(tuple, queries, predicates);
    for (int m = index.options_.neighbours;; m = std::min(2 * m, widest)) {
      if (m == index.options_.neighbours || !keep_gathered) {
        for (ann::TopK& g : groups) g.reset(want);
        pushed = &Marks::of_this_thread(0, index.model_.kb.facts.size());
        for (std::size_t i = 0; i < ground.size(); ++i)
          gathered[i] = &Marks::of_this_thread(1 + i, static_cast<std::size_t>(index.points_.rows()));
        std::fill(reach.begin(), reach.end(), kInfinity);
        std::fill(limits.begin(), limits.end(), kInfinity);
        widest_limit = kInfinity;
        limits_stale = false;
      }
      const float bound = source.gather(*this, tuple.constants, m);
      sort_groups();
      bool certified = true;
      for (std::size_t q : tuple.members)
        certified = rank(queries[q], predicates.at(queries[q].predicate_row), bound, found[q]) && certified;
      if (certified || m >= widest) return;
      index.count_widened();
    }
  }

  // sorted[g]: what group g holds, nearest first (rank reads it).
  void sort_groups() {
    for (std::size_t g = 0; g < groups.size(); ++g) groups[g].copy_sorted(sorted[g]);
  }

  // True when the facts gathered so far certify every query of the tuple,
  // every fact not gathered being at least `bound` away in cd.
  bool all_certified(float bound) {
    sort_groups();
    for (std::size_t q : asked.tuple->members) {
      const FactQuery& query = (*asked.queries)[q];
      if (!rank(query, asked.predicates->at(query.predicate_row), bound, scratch_found)) return false;
    }
    return true;
  }

  // The query's nearest gathered facts, its predicate distance added to
  // each group's cd. Every fact not gathered is at least `unseen` away; the
  // answer is certified when the last fact it keeps (want minus this
  // query's masked facts: the caller asked for spares) is not farther.
  bool rank(const FactQuery& query, const PredicateDistances& pd, float bound, std::vector<int>& found) const {
    ann::TopK best;
    best.reset(want);
    for (std::size_t g = 0; g < sorted.size(); ++g)
      for (const ann::Scored& e : sorted[g]) best.push(pd.to_group[g] + e.distance, e.id);
    const float unseen = pd.nearest + bound;
    found.clear();
    const int to_keep = std::max(1, want - query.masked.size());
    int kept = 0;
    float last_kept = kInfinity;
    for (const ann::Scored& b : best.sorted()) {
      found.push_back(b.id);
      if (!query.masked.contains(b.id) && ++kept == to_keep) last_kept = b.distance;
    }
    return unseen == kInfinity || last_kept <= unseen;
  }

  void set_members(const TupleQueries& tuple, const std::vector<FactQuery>& queries, const PredicateTable& predicates) {
    asked = {&tuple, &queries, &predicates};
    members = tuple.members.size();
    member_to_group.resize(groups.size() * members);
    for (std::size_t q = 0; q < members; ++q) {
      const PredicateDistances& pd = predicates.at(queries[tuple.members[q]].predicate_row);
      for (std::size_t g = 0; g < groups.size(); ++g) member_to_group[g * members + q] = pd.to_group[g];
    }
    reach.resize(members);
    limits.resize(groups.size());
  }

  void push(int fact, float cd) { push(fact, index.model_.kb.facts[static_cast<std::size_t>(fact)].predicate, cd); }
  void push(int fact, int predicate, float cd) {
    ann::TopK& group = groups[static_cast<std::size_t>(predicate)];
    if (!group.push(cd, fact)) return;
    const float worst = group.bound();
    if (worst == kInfinity) return;
    const float* to_group = member_to_group.data() + static_cast<std::size_t>(predicate) * members;
    for (std::size_t q = 0; q < members; ++q)
      if (to_group[q] + worst < reach[q]) {
        reach[q] = to_group[q] + worst;
        limits_stale = true;
      }
  }

  // limits from reach (see above); called between look-ups and every so
  // many pushes, as it costs P x members.
  void update_limits() {
    pushes_since_limits = 0;
    if (!limits_stale) return;
    limits_stale = false;
    float farthest = 0;
    for (float r : reach) farthest = std::max(farthest, r);
    if (farthest == kInfinity) return;  // some query has no full group yet
    // Sums and differences of floats round; the slack keeps every fact whose
    // sum could come out at or below reach[q] (relative rounding ~1e-7).
    const float slack = 1e-5f * (farthest + 1.0f);
    widest_limit = -kInfinity;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const float* to_group = member_to_group.data() + g * members;
      float limit = -kInfinity;
      for (std::size_t q = 0; q < members; ++q) limit = std::max(limit, reach[q] - to_group[q]);
      limits[g] = limit + slack;
      widest_limit = std::max(widest_limit, limits[g]);
    }
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

  // The candidates of the look-ups in `near`: the facts holding one of
  // near[i]'s constants at ground position i, each once. Returns the bound
  // on the cd of every fact not gathered.
  //
  // A fact not gathered at position i has its cd term there at least the
  // distance of the nearest constant not gathered there (beyond[j] of the
  // look-up, j constants in), whatever the other positions hold. So the
  // look-ups are gathered a growing prefix at a time (1, 2, 4, ...
  // constants), and once what is gathered certifies every query of the
  // tuple with Σ_i beyond_i[j_i], the rest is left: in p(z, b) with b a hub
  // (FB15k-237's objects hold thousands of facts), the facts of z, b and
  // their nearest few usually decide, and the hubs further out are never
  // read. As soon as what is left is cheap it is all gathered. With an
  // exact look-up the answers are those of gathering all of it. An HNSW
  // look-up may miss a near constant, and a fact holding it, which another
  // position's gathering would have caught, is then missed more often: the
  // training's recall probe measures what that costs.
  float candidates_near(const std::vector<int>& tuple) {
    // A check ranks what the groups hold for every query: worth it only
    // before a gather of more facts than this (chosen on FB15k-237's
    // training: 0 to 4,096, and 4 per group and query, were slower).
    constexpr long long kWorthChecking = 256;
    for (std::size_t i = 0; i < ground.size(); ++i) {
      shared_rows[i] = shared.row(tuple[i]);
      upto[i] = 0;
      count_facts_held(i);
    }
    for (;;) {
      // The position whose prefix grows next: the one whose next doubling
      // holds the fewest facts (a hub's own facts wait while a rare
      // constant's may already decide); everything, once what is left is cheap.
      std::size_t grow = ground.size();
      long long fewest = 0, left = 0;
      for (std::size_t i = 0; i < ground.size(); ++i) {
        if (upto[i] == near[i]->constants.size()) continue;
        const long long next = held_before[i][next_prefix(i)] - held_before[i][upto[i]];
        if (grow == ground.size() || next < fewest) grow = i, fewest = next;
        left += held_before[i].back() - held_before[i][upto[i]];
      }
      if (grow == ground.size()) break;  // all gathered
      if (left <= kWorthChecking) {
        for (std::size_t i = 0; i < ground.size(); ++i) gather_upto(i, near[i]->constants.size(), tuple);
        break;
      }
      gather_upto(grow, next_prefix(grow), tuple);
      const float bound = bound_beyond_gathered();
      if (all_certified(bound)) return bound;
    }
    return bound_beyond_gathered();
  }

  // How far position i's prefix grows next: it doubles (from 1).
  std::size_t next_prefix(std::size_t i) const {
    return std::min(near[i]->constants.size(), std::max<std::size_t>(1, 2 * upto[i]));
  }

  // held_before[i][n]: the facts held at position i by the first n
  // constants of look-up i.
  void count_facts_held(std::size_t i) {
    const Adjacency& adj = index.adjacency(arity, ground[i]);
    std::vector<long long>& held = held_before[i];
    held.assign(1, 0);
    for (int c : near[i]->constants)
      held.push_back(held.back() + adj.offsets[static_cast<std::size_t>(c) + 1] - adj.offsets[static_cast<std::size_t>(c)]);
  }

  // Gathers the facts of look-up i's constants from upto[i] to `end`.
  void gather_upto(std::size_t i, std::size_t end, const std::vector<int>& tuple) {
    const Neighbourhood& look = *near[i];
    const Adjacency& adj = index.adjacency(arity, ground[i]);
    for (std::size_t n = upto[i]; n < end; ++n)
      if (gathered[i]->first_visit(look.constants[n]))
        push_facts_holding(adj, look.constants[n], i, look.distances[n], tuple);
    upto[i] = end;
  }

  // The least cd of a fact not gathered: Σ_i of the nearest constant not
  // gathered at position i (every constant beyond the look-up is at least
  // its radius away).
  float bound_beyond_gathered() const {
    float bound = 0;
    for (std::size_t i = 0; i < ground.size(); ++i)
      bound += upto[i] < near[i]->constants.size() ? near[i]->beyond[upto[i]] : near[i]->radius;
    return bound;
  }

  // The facts not yet pushed that hold constant c at ground position i, whose
  // cd term there is `distance` (c's, known from the look-up).
  // Facts beyond their group's limit are skipped, before their other
  // distances when `distance` alone exceeds it, else as soon as the sum does.
  void push_facts_holding(const Adjacency& adj, int c, std::size_t i, float distance, const std::vector<int>& tuple) {
    constexpr int kPushesBetweenLimits = 256;
    if (pushes_since_limits >= 16) update_limits();  // setting limits costs P x members: not for a few pushes
    if (distance > widest_limit) return;
    for (int j = adj.offsets[static_cast<std::size_t>(c)]; j < adj.offsets[static_cast<std::size_t>(c) + 1]; ++j) {
      const int predicate = adj.predicates[static_cast<std::size_t>(j)];
      const float limit = limits[static_cast<std::size_t>(predicate)];
      if (distance > limit) continue;
      const int* args = adj.args.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(arity);
      float cd = distance;
      for (std::size_t other = 0; other < ground.size() && cd <= limit; ++other) {
        if (other == i) continue;
        const int arg = args[ground[other]];
        if (shared_rows[other]) cd += shared_rows[other][arg];
        else if (!within(tuple[other], arg, limit - cd)) cd = kInfinity;
        else cd += squared_distance(index.points_, tuple[other], arg);
      }
      // Marked only now: most facts fail the limit, and one that failed it
      // fails it again if reached again (limits only fall), so only the
      // pushed need a mark, which is a read and write far from the rest.
      if (cd > limit) continue;
      const int f = adj.facts[static_cast<std::size_t>(j)];
      if (!pushed->first_visit(f)) continue;
      push(f, predicate, cd);
      if (++pushes_since_limits == kPushesBetweenLimits) update_limits();
    }
  }

  // False when the squared distance of constants a and b surely exceeds
  // `room`: the difference of their norms already does (‖a - b‖ >=
  // |‖a‖ - ‖b‖|; two floats, no row read), less a slack for the norms'
  // rounding, relative to their size; or their first 32 coordinates do (a
  // third of a 100-d distance; the limits' own slack covers its rounding).
  bool within(int a, int b, float room) const {
    constexpr Eigen::Index kPrefix = 32;
    if (room == kInfinity) return true;
    const float na = index.norms_[static_cast<std::size_t>(a)], nb = index.norms_[static_cast<std::size_t>(b)];
    const float gap = std::abs(na - nb) - 1e-5f * (na + nb);
    if (gap > 0 && gap * gap > room) return false;
    if (index.points_.cols() < 2 * kPrefix) return true;
    return (index.points_.row(a).head(kPrefix) - index.points_.row(b).head(kPrefix)).squaredNorm() <= room;
  }
};

// Every fact of the arity is a candidate: exact, nothing left unseen.
struct ConstantIndex::ScanAll : CandidateSource {
  float gather(TupleSearch& s, const std::vector<int>& tuple, int) const override {
    s.scan(tuple);
    return kInfinity;
  }
};

// The facts holding, at some ground position, one of the constants nearest
// to the tuple's constant there. The first look-up of every distinct
// constant of the batch is made up front, in parallel, and shared by its
// tuples (and by later searches until a constant moves: first_lookups);
// wider ones are made per tuple, when needed.
struct ConstantIndex::NearConstants : CandidateSource {
  const ConstantIndex& index;
  std::vector<int> distinct;  // ascending: every constant of every tuple
  std::vector<std::shared_ptr<const Neighbourhood>> first;  // (distinct): their first look-ups

  NearConstants(const ConstantIndex& idx, const std::vector<TupleQueries>& tuples) : index(idx) {
    for (const TupleQueries& t : tuples) distinct.insert(distinct.end(), t.constants.begin(), t.constants.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    first = index.first_lookups(distinct);
  }

  float gather(TupleSearch& s, const std::vector<int>& tuple, int neighbours) const override {
    for (std::size_t i = 0; i < tuple.size(); ++i) {
      if (neighbours == index.options_.neighbours) s.near[i] = first_of(tuple[i]);
      else s.near[i] = &(s.wider[i] = index.neighbourhood(tuple[i], neighbours));
    }
    return s.candidates_near(tuple);
  }

  const Neighbourhood* first_of(int c) const {
    const auto at = std::lower_bound(distinct.begin(), distinct.end(), c) - distinct.begin();
    return first[static_cast<std::size_t>(at)].get();
  }
};

ConstantIndex::Neighbourhood ConstantIndex::neighbourhood(int c, int m) const {
  if (lists_ && m <= lists_->listed()) return listed_neighbourhood(c, m);
  // An HNSW beam grows with the look-up: the first look-ups are many and
  // narrow, the wider ones few.
  const ann::Neighbours nb =
      hnsw_ ? hnsw_->search(points_.row(c), m, options_.beam_per_neighbour * m) : graph_->search(points_.row(c), m);
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
  near.set_beyond();
  return near;
}

void ConstantIndex::Neighbourhood::set_beyond() {
  // A suffix minimum, as the live distances need not come in ascending
  // order (the graph may lag the embeddings; the lists were ranked by
  // another rounding).
  beyond.resize(distances.size());
  float nearest = kInfinity;
  for (std::size_t j = distances.size(); j-- > 0;) beyond[j] = nearest = std::min(nearest, distances[j]);
}

std::vector<std::shared_ptr<const ConstantIndex::Neighbourhood>> ConstantIndex::first_lookups(
    const std::vector<int>& constants) const {
  std::vector<std::shared_ptr<const Neighbourhood>> found(constants.size());
  std::vector<std::size_t> missing;
  {
    std::lock_guard<std::mutex> lock(first_lookups_mutex_);
    for (std::size_t i = 0; i < constants.size(); ++i) {
      const auto at = first_lookups_.find(constants[i]);
      if (at != first_lookups_.end()) found[i] = at->second;
      else missing.push_back(i);
    }
  }
#pragma omp parallel for schedule(dynamic, 4) if (missing.size() >= 16)  // threads for batches, not single queries
  for (std::size_t j = 0; j < missing.size(); ++j)
    found[missing[j]] = std::make_shared<const Neighbourhood>(neighbourhood(constants[missing[j]], options_.neighbours));
  std::lock_guard<std::mutex> lock(first_lookups_mutex_);
  for (std::size_t i : missing) first_lookups_.emplace(constants[i], found[i]);
  return found;
}

ConstantIndex::Neighbourhood ConstantIndex::listed_neighbourhood(int c, int m) const {
  Neighbourhood near;
  near.constants.push_back(c);  // first, as in neighbourhood()
  near.distances.push_back(0.0f);
  const int* ids = lists_->listed_ids(c);
  for (int j = 0; j < lists_->listed() && static_cast<int>(near.constants.size()) < m; ++j)
    if (ids[j] != c) {
      near.constants.push_back(ids[j]);
      near.distances.push_back(squared_distance(points_, c, ids[j]));
    }
  // Every constant left out is at least as far as the last one listed.
  near.radius = *std::max_element(near.distances.begin(), near.distances.end());
  near.set_beyond();
  return near;
}

ConstantIndex::ConstantIndex(const Model& model, Lookup lookup, const FactIndexOptions& options)
    : FactIndex(model), lookup_(lookup), options_(options),
      update_every_(options.update_every > 0 ? options.update_every : kDefaultRelinkEvery) {
  if (options_.neighbours < 1 || options_.max_neighbours < options_.neighbours || options_.update_every < 0 ||
      options_.beam_per_neighbour < 1)
    throw std::invalid_argument(
        "fact index: need 1 <= neighbours <= max_neighbours, update_every >= 0 and beam_per_neighbour >= 1, got " +
        std::to_string(options_.neighbours) + ", " + std::to_string(options_.max_neighbours) + ", " +
        std::to_string(options_.update_every) + ", " + std::to_string(options_.beam_per_neighbour));
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
    case Lookup::Listed: return "exact";
  }
  return "?";
}

const ConstantIndex::Adjacency& ConstantIndex::adjacency(int arity, int position) const {
  return adjacency_[static_cast<std::size_t>(arity)][static_cast<std::size_t>(position)];
}

void ConstantIndex::copy_constant(int c) {
  points_.row(c) = model_.constants.value.row(c).cast<float>();
  norms_[static_cast<std::size_t>(c)] = points_.row(c).norm();
}

void ConstantIndex::forget_lookups() {
  std::lock_guard<std::mutex> lock(first_lookups_mutex_);
  first_lookups_.clear();
}

void ConstantIndex::all_moved() {
  forget_lookups();
  points_ = model_.constants.value.cast<float>();
  norms_.resize(static_cast<std::size_t>(points_.rows()));
  for (Eigen::Index c = 0; c < points_.rows(); ++c) norms_[static_cast<std::size_t>(c)] = points_.row(c).norm();
  pending_.clear();
  is_pending_.assign(static_cast<std::size_t>(points_.rows()), 0);
  steps_since_update_ = 0;
  rebuild_graph();
}

void ConstantIndex::rebuild_graph() {
  graph_.reset();
  hnsw_ = nullptr;
  lists_.reset();
  if (lookup_ == Lookup::Scan || points_.rows() == 0) return;
  if (lookup_ == Lookup::Listed) {
    lists_ = std::make_unique<ConstantBalls>(model_, kListed);
    graph_ = std::make_unique<ann::BruteForce>();
    graph_->build(points_);
    return;
  }
  if (lookup_ == Lookup::Hnsw) {
    ann::HnswParams params;
    // Training shrinks frequent constants towards the origin (L2 on every
    // touch), where they are near everything: without the pruned links the
    // graph of a trained WN11 model leaves 98% of its nodes unreachable.
    params.keep_pruned = true;
    auto hnsw = std::make_unique<ann::Hnsw>(params);
    hnsw_ = hnsw.get();
    graph_ = std::move(hnsw);
  }
  else graph_ = std::make_unique<ann::KdTree>();
  graph_->build(points_);
}

void ConstantIndex::apply_moved(const MovedRows& rows) {
  if (rows.constants.empty()) return;
  forget_lookups();  // a moved constant may enter or leave any constant's neighbours
  for (int c : rows.constants) copy_constant(c);
  if (!graph_) return;
  // Moved points are written into the graph at once (for an HNSW graph, in
  // place: its links stay good while points drift a little) and relinked
  // every update_every steps.
  ann::RowMatrix moved(static_cast<Eigen::Index>(rows.constants.size()), points_.cols());
  for (std::size_t i = 0; i < rows.constants.size(); ++i) moved.row(static_cast<Eigen::Index>(i)) = points_.row(rows.constants[i]);
  graph_->move_points(rows.constants, moved);
  if (lists_) lists_ = std::make_unique<ConstantBalls>(model_, kListed);  // every list may have changed
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

std::unique_ptr<ConstantIndex::CandidateSource> ConstantIndex::candidate_source(
    const std::vector<int>& ground, const std::vector<TupleQueries>& tuples) const {
  // A pattern without ground positions has no constant to look up: every
  // fact is a candidate. (Without constants in the model, no pattern has
  // ground positions, so the graph exists whenever it is asked.)
  if (lookup_ == Lookup::Scan || ground.empty()) return std::make_unique<ScanAll>();
  return std::make_unique<NearConstants>(*this, tuples);
}

int ConstantIndex::widest_lookup() const {
  // A k-d tree widens until certified (exact); an HNSW graph up to max_neighbours.
  return lookup_ != Lookup::Hnsw ? std::max(1, static_cast<int>(points_.rows())) : options_.max_neighbours;
}

std::vector<std::vector<int>> ConstantIndex::search(const std::vector<FactQuery>& queries, int want) {
  const std::vector<int> pattern = pattern_key(queries.front());
  const int arity = pattern[0];
  const std::vector<int> ground(pattern.begin() + 1, pattern.end());
  const PredicateTable predicates = predicate_distances(model_, queries);
  const std::vector<TupleQueries> tuples = TupleQueries::group(queries, ground);
  const std::unique_ptr<CandidateSource> source = candidate_source(ground, tuples);
  const SharedDistances shared(points_, TupleQueries::shared_by(tuples, SharedDistances::kMinTuples));
  std::vector<std::vector<int>> found(queries.size());
#pragma omp parallel if (tuples.size() >= 16)  // threads for batches, not single queries
  {
    TupleSearch s(*this, ground, arity, want, shared);
#pragma omp for schedule(dynamic, 2)
    for (std::size_t t = 0; t < tuples.size(); ++t) s.run(*source, tuples[t], queries, predicates, found);
  }
  return found;
}

}  // namespace ntp
