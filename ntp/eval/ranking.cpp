// ntp/eval/ranking.cpp: filtered ranking and best answers through upper
// bounds (see ranking.h).
#include "ntp/eval/ranking.h"

#include "ntp/index/constant_balls.h"
#include "ntp/model/complex.h"
#include "ntp/prover/slot_bound.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>

namespace ntp {

std::vector<double> reciprocal_ranks(const RankingResult& r) {
  std::vector<double> out;
  for (const SideRank& side : r.ranks) out.push_back(1 / side.mean);
  return out;
}

namespace {

// Bounds and scores are doubles computed in different orders (a matrix
// product against per-atom sums); a candidate within this of its need is
// scored rather than dropped.
constexpr double kSlack = 1e-9;
// Constants scored without a bound: those needing the least proof score.
constexpr std::size_t kDirect = 64;
// A bound search may do work in proportion to the constants it would spare
// (the next 3x direct), so that one that gives up costs about as much as
// the scoring it tried to avoid. 2,000 work units per constant is a guess at
// a score's cost, not a measurement; 500 ran within the noise on WN18RR.
constexpr long long kWorkPerDirect = 3 * 2000;
// A bound search is not tried when the kernel's ball around the goal's own
// constant holds more than 1% of the constants (and more than this): on
// WN18RR no such search succeeded (0 of 145 on 128 sides, 11 s of searching
// against 118 of 142 below 1%).
constexpr std::size_t kWideBall = 256;
// One side of a test triple: its rank among the corruptions at `slot` that
// are not known true; nothing once `give_up` says so.
std::optional<SideRank> rank_side(const CandidateFinder& finder, const Model& model, const Atom& truth, int slot,
                                  const std::unordered_set<Atom, AtomHash>& known, bool one_by_one,
                                  const std::function<bool()>& give_up) {
  const RankKey true_key = rank_keys(model, {truth}, finder.options())[0];
  CandidateFinder::Reach reach;
  if (one_by_one) {
    reach.maybe.resize(static_cast<std::size_t>(model.kb.constants.size()));
    std::iota(reach.maybe.begin(), reach.maybe.end(), 0);
  } else {
    reach = finder.reaching(finder.side(truth, slot, true_key.score), true_key.score);
  }
  SideRank r;
  Atom corrupted = truth;
  auto is_corruption = [&](int c) {
    corrupted.args[static_cast<std::size_t>(slot)] = c;
    return corrupted != truth && !known.count(corrupted);
  };
  for (int c = 0; c < model.kb.constants.size(); ++c) r.corruptions += is_corruption(c) ? 1 : 0;
  std::vector<int> maybe;
  for (int c : reach.maybe)
    if (is_corruption(c)) maybe.push_back(c);
  std::optional<std::vector<RankKey>> keys = finder.keys(truth, slot, maybe, give_up);
  if (!keys) return std::nullopt;
  r.scored = static_cast<long long>(keys->size());
  // Above the true triple without scoring: their ComplEx score with their proof floor beats it.
  for (int c : reach.above)
    if (is_corruption(c)) keys->push_back({std::numeric_limits<double>::infinity(), 0});
  r.side = slot;
  r.mean = tie_mean_rank_by_key(true_key, *keys);
  r.optimistic = tie_optimistic_rank_by_key(true_key, *keys);
  r.tied = is_tied(true_key, *keys);
  r.tied_on_score = std::any_of(keys->begin(), keys->end(), [&](const RankKey& k) { return k.score == true_key.score; });
  return r;
}

}  // namespace

CandidateFinder::CandidateFinder(const Model& model, const ScoreOptions& options, long long max_bound_work)
    : model_(model), options_(with_index(model, options)), rule_(scoring_rule(model, options.source)) {
  balls_ = options_.facts ? options_.facts->constant_lists() : nullptr;
  if (!balls_) {
    own_balls_ = std::make_unique<ConstantBalls>(model);
    balls_ = own_balls_.get();
  }
  bounds_ = std::make_unique<SlotBounds>(model, *balls_, max_bound_work);
}

CandidateFinder::~CandidateFinder() = default;

ScoreOptions CandidateFinder::with_index(const Model& model, const ScoreOptions& options) {
  return scoring_rule(model, options.source) ? with_fact_index(model, options) : options;
}

CandidateFinder::Side CandidateFinder::side(const Atom& atom, int slot, double target) const {
  Side s{atom, slot, {}, {}, std::nullopt};
  if (!rule_ || *rule_ != Combine::Proof) s.link = complex_scores_at(model_, atom, slot);
  if (!rule_) return s;
  const SlotBounds::ArgumentDistances to_argument = bounds_->argument_distances(atom, slot);
  // The floor holds for an exact fact index only.
  if (options_.facts->exact())
    s.floor = bounds_->lower_bounds(atom, slot, to_argument, *options_.facts, useful_floor(s.link, target));
  s.sites = bounds_->sites(atom, slot, to_argument);
  return s;
}

double CandidateFinder::useful_floor(const std::vector<double>& link, double target) const {
  if (target <= 0) return 0;
  // The least proof score some constant needs to reach the target; a floor
  // below it changes no constant's place (a hair lower, for rounding).
  double least = link.empty() ? least_proof_score(*rule_, target, 0.0) : std::numeric_limits<double>::infinity();
  for (double l : link) {
    const double need = least_proof_score(*rule_, target, l);
    if (need > 0) least = std::min(least, need);
  }
  return std::min(least, 1.0) * (1 - 1e-9);
}

CandidateFinder::Reach CandidateFinder::reaching(const Side& side, double target) const {
  const std::size_t constants = static_cast<std::size_t>(model_.kb.constants.size());
  const std::vector<double>& link = side.link;
  Reach out;
  if (!rule_) {  // ComplEx alone: no proofs to bound
    for (std::size_t c = 0; c < constants; ++c)
      if (link[c] >= target - kSlack) out.maybe.push_back(static_cast<int>(c));
    return out;
  }
  // The proof score each constant needs; a constant whose proof floor
  // joined with its ComplEx score already beats the target is above it
  // whatever its proofs.
  std::vector<double> need(constants, target);
  std::vector<int> open;
  for (std::size_t c = 0; c < constants; ++c) {
    const double floor = side.floor.empty() ? 0.0 : side.floor[c];
    if (join_scores(*rule_, floor, link.empty() ? 0.0 : link[c]) > target + kSlack) {
      out.above.push_back(static_cast<int>(c));
      continue;
    }
    if (!link.empty()) need[c] = least_proof_score(*rule_, target, link[c]);
    open.push_back(static_cast<int>(c));
  }
  // Rules whose bodies are one atom (inverses, implications) meet the slot
  // at a fact constant directly: a bound for every constant from one pass
  // over the facts and its listed neighbours (list_bounds), which no
  // threshold makes give up. It drops most constants when the lists reach
  // the sites (WN18RR's exact index lists 256 per constant); the search
  // then works on those left.
  if (side.sites) {
    open = left_by_lists(side, need, open);
    if (open.size() <= kDirect) {
      out.maybe = std::move(open);
      return out;
    }
  }
  out.maybe = left_by_search(side, need, open);
  return out;
}

std::vector<int> CandidateFinder::left_by_lists(const Side& side, const std::vector<double>& need,
                                                const std::vector<int>& open) const {
  const std::vector<double> bound = bounds_->list_bounds(*side.sites, need);
  std::vector<int> left;
  for (int c : open) {
    const std::size_t i = static_cast<std::size_t>(c);
    if (need[i] <= kSlack || bound[i] >= need[i] - kSlack) left.push_back(c);
  }
  return left;
}

std::vector<int> CandidateFinder::left_by_search(const Side& side, const std::vector<double>& need,
                                                 const std::vector<int>& open) const {
  // The search is pruned at tau, the least need of all but the `direct`
  // constants that need the least (kDirect, or an eighth of a small KB's),
  // which are scored without a bound: one constant that needs almost nothing
  // must not make the search visit everything. A low true score leaves many
  // constants needing little, and a tau so small that the search gives up;
  // then 4x more are scored directly.
  std::vector<double> needs;
  for (int c : open) needs.push_back(need[static_cast<std::size_t>(c)]);
  std::sort(needs.begin(), needs.end());
  std::vector<int> left;
  for (std::size_t direct = std::min(kDirect, needs.size() / 8); direct < needs.size();
       direct = std::max(4 * direct, kDirect)) {
    const double tau = needs[direct];
    if (too_wide_to_bound(side, tau - kSlack)) continue;
    const long long budget = kWorkPerDirect * static_cast<long long>(std::max(direct, kDirect));
    const std::optional<std::vector<double>> bound = bounds_->upper_bounds(side.atom, side.slot, tau - kSlack, budget);
    if (!bound) continue;
    for (int c : open) {
      const std::size_t i = static_cast<std::size_t>(c);
      if (need[i] < tau || need[i] <= kSlack || (*bound)[i] >= need[i] - kSlack) left.push_back(c);
    }
    return left;
  }
  // Too few to bound, or every search gave up: score all that a proof (which
  // scores at most 1) can lift to the target.
  for (int c : open)
    if (need[static_cast<std::size_t>(c)] <= 1 + kSlack) left.push_back(c);
  return left;
}

bool CandidateFinder::too_wide_to_bound(const Side& side, double tau) const {
  // The goal's first ground constant (p(s, ?): s): every proof through one
  // of its facts reaches the constants within the kernel's radius of it.
  int ground = -1;
  for (std::size_t i = 0; i < side.atom.args.size() && ground < 0; ++i)
    if (static_cast<int>(i) != side.slot && side.atom.args[i] >= 0) ground = side.atom.args[i];
  if (ground < 0) return false;
  std::vector<int> ball;
  balls_->within(ground, squared_radius_of_kernel(tau), ball);
  return ball.size() > std::max(static_cast<std::size_t>(balls_->size()) / 100, kWideBall);
}

std::optional<std::vector<RankKey>> CandidateFinder::keys(const Atom& atom, int slot, const std::vector<int>& constants,
                                                          const std::function<bool()>& give_up) const {
  std::vector<Atom> atoms(constants.size(), atom);
  for (std::size_t i = 0; i < constants.size(); ++i) atoms[i].args[static_cast<std::size_t>(slot)] = constants[i];
  return rank_keys_unless_given_up(model_, atoms, options_, give_up);
}

RankingResult given_up_ranking() {
  RankingResult none;
  none.given_up = true;
  return none;
}

RankingResult evaluate_ranking(const Model& model, const std::vector<Atom>& test,
                               const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& options,
                               const RankingOptions& ranking) {
  std::vector<std::pair<std::size_t, int>> sides;  // (test triple, argument)
  for (std::size_t t = 0; t < test.size(); ++t) {
    if (test[t].args.empty()) continue;
    sides.emplace_back(t, 0);
    if (test[t].args.size() > 1) sides.emplace_back(t, static_cast<int>(test[t].args.size()) - 1);
  }
  const CandidateFinder finder(model, options, ranking.max_bound_work);
  const GiveUp given_up(ranking.give_up);
  const std::function<bool()> giving_up = std::cref(given_up);
  std::vector<SideRank> ranks(sides.size());
  std::vector<std::exception_ptr> errors(sides.size());  // an exception must not leave an OpenMP region
  std::mutex progress_mutex;
  std::size_t done = 0;
#pragma omp parallel for schedule(dynamic, 1) if (sides.size() > 1)
  for (std::size_t i = 0; i < sides.size(); ++i) {
    try {
      if (giving_up()) continue;
      const std::optional<SideRank> r =
          rank_side(finder, model, test[sides[i].first], sides[i].second, known, ranking.one_by_one, giving_up);
      if (!r) continue;
      ranks[i] = *r;
      ranks[i].triple = sides[i].first;
    } catch (...) {
      errors[i] = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(progress_mutex);
    ++done;
    if (ranking.progress) ranking.progress(done, sides.size());
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return given_up.said() ? given_up_ranking() : summarise_ranks(std::move(ranks));
}

RankingResult summarise_ranks(std::vector<SideRank> ranks) {
  RankingResult result;
  std::vector<double> mean_ranks, optimistic_ranks;
  for (const SideRank& r : ranks) {
    mean_ranks.push_back(r.mean);
    optimistic_ranks.push_back(r.optimistic);
    result.tied_ranks += r.tied ? 1 : 0;
    result.tied_on_score_alone += r.tied_on_score ? 1 : 0;
  }
  result.mean_ties = ranking_metrics(mean_ranks);
  result.optimistic_ties = ranking_metrics(optimistic_ranks);
  result.ranks = std::move(ranks);
  return result;
}

std::vector<int> CandidateFinder::seeds(const Side& side, int top) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < side.atom.args.size(); ++i)
    if (static_cast<int>(i) != side.slot && side.atom.args[i] >= 0) {
      const std::vector<int> near = bounds_->fact_neighbours(side.atom.args[i]);
      out.insert(out.end(), near.begin(), near.end());
    }
  if (!side.link.empty()) {
    const std::vector<double>& link = side.link;
    std::vector<int> order(link.size());
    std::iota(order.begin(), order.end(), 0);
    const std::size_t keep = std::min(order.size(), static_cast<std::size_t>(top) + kDirect);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                      [&](int a, int b) { return link[static_cast<std::size_t>(a)] > link[static_cast<std::size_t>(b)]; });
    out.insert(out.end(), order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::pair<int, RankKey>> best_constants(const CandidateFinder& finder, const Atom& atom, int slot, int top) {
  const int constants = finder.model().kb.constants.size();
  std::map<int, RankKey> scored;  // constant -> key, each scored once
  auto score = [&](const std::vector<int>& candidates) {
    std::vector<int> fresh;
    for (int c : candidates)
      if (!scored.count(c)) fresh.push_back(c);
    const std::vector<RankKey> keys = *finder.keys(atom, slot, fresh);
    for (std::size_t i = 0; i < fresh.size(); ++i) scored.emplace(fresh[i], keys[i]);
  };
  auto cleared = [&](double target) {
    return std::count_if(scored.begin(), scored.end(), [&](const auto& s) { return s.second.score >= target; });
  };
  // A first bar: the top-th best score among likely answers (constants that
  // share a fact with the query's, ComplEx's best); then every constant that
  // may clear it is scored, lowering the bar if fewer than `top` do.
  const CandidateFinder::Side side = finder.side(atom, slot);
  score(finder.seeds(side, top));
  std::vector<double> seen;
  for (const auto& s : scored) seen.push_back(s.second.score);
  std::sort(seen.begin(), seen.end(), std::greater<double>());
  double target = static_cast<int>(seen.size()) >= top && top > 0 ? seen[static_cast<std::size_t>(top - 1)] : 0.5;
  for (;; target /= 2) {
    if (target < 1e-4) {
      std::vector<int> all(static_cast<std::size_t>(constants));
      std::iota(all.begin(), all.end(), 0);
      score(all);
      break;
    }
    CandidateFinder::Reach reach = finder.reaching(side, target);
    score(reach.maybe);
    score(reach.above);
    if (cleared(target) >= top) break;
  }
  std::vector<std::pair<int, RankKey>> best(scored.begin(), scored.end());  // constant order
  const std::size_t keep = std::min(best.size(), static_cast<std::size_t>(std::max(0, top)));
  std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(keep), best.end(),
                    [](const std::pair<int, RankKey>& a, const std::pair<int, RankKey>& b) {
                      return a.second > b.second || (a.second == b.second && a.first < b.first);
                    });
  best.resize(keep);
  return best;
}

}  // namespace ntp
