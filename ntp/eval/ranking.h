// ntp/eval/ranking.h: filtered ranking at the cost of the candidates that can
// matter, with exactly the ranks of scoring every candidate one by one.
//
// A test triple p(s, o) is ranked twice: o among every constant c as the
// object of p(s, c), and s among every c as the subject of p(c, o), leaving
// out the corruptions that are known true. Only the corruptions scoring at
// least the true triple's t move its rank, so for each side:
//   1. t, and the ComplEx score of every c (one matrix-vector product);
//   2. from those, the proof score each c would need to reach t
//      (least_proof_score), and the least of these, tau;
//   3. an upper bound on every c's proof score (SlotBounds): when every rule
//      body is one atom, from one pass over the facts and each constant's
//      listed neighbours (SlotBounds::sites, list_bounds); for the constants
//      left, from one search over all facts and rules with the argument left
//      open, pruned at tau, the few constants needing less than tau scored
//      without a bound, and when the search would visit too much, tau rising
//      (4x more of them);
//   4. the corruptions whose bound reaches their need are scored exactly, by
//      the same code (rank_keys) and fact index as one-by-one ranking; every
//      other one scores below t, so it is below the true triple whatever the
//      tie rule;
//   5. but a corruption whose proof floor (SlotBounds::lower_bounds, with an
//      exact index: its nearest fact, its sub-goals' through the rules
//      with one-atom bodies, and its proofs through chains of two whose
//      first fact is known without proving the corruption) joined with its
//      ComplEx score already beats t is counted above the true triple
//      without being scored.
// The bounds hold for any set of facts the prover keeps (they are bounds over
// all of them), so the ranks equal one-by-one ranks with the same index; use
// an exact index (the default for ranking) to get the ranks of exact search.
#pragma once

#include "ntp/eval/evaluate.h"
#include "ntp/prover/slot_bound.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace ntp {

class ConstantBalls;

// What ranking and answering find candidates with: the model's scoring rule
// and the bounds on what each constant can score at an open argument. Built
// once per model: it finds every constant's nearest constants (seconds on a
// large KB). Thread-safe after construction.
class CandidateFinder {
 public:
  // `options` as for rank_keys; its fact index is built here when empty.
  // `max_bound_work`: what one bound search may do before it gives up.
  CandidateFinder(const Model& model, const ScoreOptions& options, long long max_bound_work = SlotBounds::kMaxWork);
  ~CandidateFinder();
  CandidateFinder(const CandidateFinder&) = delete;
  CandidateFinder& operator=(const CandidateFinder&) = delete;

  // Argument `slot` of `atom` left open, with what every constant c there
  // scores without being proven, computed once for any number of targets.
  struct Side {
    Atom atom;
    int slot = 0;
    std::vector<double> link;   // (C) ComplEx's score; empty when the rule has none
    std::vector<double> floor;  // (C) the proof floor (lower_bounds); empty: 0 (no exact index)
    std::optional<SlotBounds::Sites> sites;  // for list_bounds, when the rules allow them
  };
  // Given `target`, the floors may leave out what cannot lift a constant to
  // it: ask reaching() for that target or a higher one.
  Side side(const Atom& atom, int slot, double target = 0) const;
  // Where the constants c stand against `target` at the side's open
  // argument: above it for sure (their ComplEx score, with their proof
  // floor, beats it), or maybe at or above it (to be scored); every other
  // one scores below it.
  struct Reach {
    std::vector<int> above, maybe;  // ascending
  };
  Reach reaching(const Side& side, double target) const;
  // Likely good constants at the open argument, to set a first bar with:
  // those sharing a fact with the atom's other constants, and ComplEx's best
  // (top + 64).
  std::vector<int> seeds(const Side& side, int top) const;
  // rank_keys of `atom` with each of `constants` at `slot`; nothing once
  // `give_up` (when given) says so (rank_keys_unless_given_up).
  std::optional<std::vector<RankKey>> keys(const Atom& atom, int slot, const std::vector<int>& constants,
                                           const std::function<bool()>& give_up = nullptr) const;
  const Model& model() const { return model_; }
  const ScoreOptions& options() const { return options_; }

 private:
  // Proofs need a fact index; ComplEx alone does not.
  static ScoreOptions with_index(const Model& model, const ScoreOptions& options);
  // Whether a bound search at `tau` would reach so many constants from the
  // goal's own that it cannot pay (it is then not tried).
  bool too_wide_to_bound(const Side& side, double tau) const;
  // The least proof floor that can lift a constant with ComplEx score `link`
  // (C, or empty) to `target`; 0 when no target is given.
  double useful_floor(const std::vector<double>& link, double target) const;
  // The constants of `open` (ascending) that may reach their need, by the
  // list bounds (the side's sites) or by a bound search.
  std::vector<int> left_by_lists(const Side& side, const std::vector<double>& need, const std::vector<int>& open) const;
  std::vector<int> left_by_search(const Side& side, const std::vector<double>& need, const std::vector<int>& open) const;

  const Model& model_;
  ScoreOptions options_;
  std::optional<Combine> rule_;  // nothing: ComplEx alone
  std::unique_ptr<ConstantBalls> own_balls_;  // when the fact index lists none
  const ConstantBalls* balls_;
  std::unique_ptr<SlotBounds> bounds_;
};

struct RankingOptions {
  // Score every corruption, not just the ones that can matter: the slow
  // reference the fast ranking must agree with.
  bool one_by_one = false;
  // Called after each ranked side with (sides done, sides in all), from one
  // thread at a time.
  std::function<void(std::size_t, std::size_t)> progress;
  // What one bound search may do before it gives up (and ranking scores
  // more constants directly); tests make it small to take that path.
  long long max_bound_work = SlotBounds::kMaxWork;
  // Asked before each side and between batches of the corruptions a side
  // scores, from any thread (so thread-safe); once it says yes, the ranking
  // ends soon after and its result is marked given_up. What a choice on dev
  // ends a ranking with when its time budget runs out in the middle of one
  // (train/combine_choice.h).
  std::function<bool()> give_up;
};

// RankingOptions::give_up asked from any thread, and not asked again once
// it said yes: every thread then sees the answer.
class GiveUp {
 public:
  explicit GiveUp(const std::function<bool()>& ask) : ask_(ask) {}
  bool operator()() const {
    if (!said_.load() && ask_ && ask_()) said_.store(true);
    return said_.load();
  }
  bool said() const { return said_.load(); }

 private:
  const std::function<bool()>& ask_;
  mutable std::atomic<bool> said_{false};
};

// One side of one test triple.
struct SideRank {
  std::size_t triple = 0;  // index into the test atoms
  int side = 0;            // the argument corrupted
  double mean = 0, optimistic = 0;
  long long scored = 0;    // corruptions scored exactly (the rest could not matter)
  long long corruptions = 0;  // corruptions not filtered out
  bool tied = false;           // a corruption's key equals the true triple's
  bool tied_on_score = false;  // a corruption's score does (what the tie-break may separate)
};

// The same ranks summarised twice: with ties at their mean rank (what we
// report) and optimistically (as the reference implementations do).
struct RankingResult {
  RankingMetrics mean_ties;
  RankingMetrics optimistic_ties;
  int tied_ranks = 0;           // ranks where a corruption's key equals the true triple's
  int tied_on_score_alone = 0;  // the same, comparing scores only (what the tie-break removes)
  std::vector<SideRank> ranks;  // test order, subject side first
  // RankingOptions::give_up ended the ranking: no ranks and no figures.
  bool given_up = false;
};

// What a ranking given up returns: given_up, no ranks, no figures.
RankingResult given_up_ranking();

// Each ranked side's reciprocal rank (ties by mean rank), in `r.ranks`' order.
std::vector<double> reciprocal_ranks(const RankingResult& r);

// The metrics of ranked sides, summed in the order given (the ranks kept as
// given).
RankingResult summarise_ranks(std::vector<SideRank> ranks);

// `known` holds every true atom to filter out (train ∪ dev ∪ test). Sides
// are ranked in parallel (OpenMP).
RankingResult evaluate_ranking(const Model& model, const std::vector<Atom>& test,
                               const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& options = {},
                               const RankingOptions& ranking = {});

// The `top` best constants at argument `slot` of `atom` (its argument there
// is ignored), best first, equal keys in constant order: what ranking every
// constant by rank_keys and keeping the first `top` would give.
std::vector<std::pair<int, RankKey>> best_constants(const CandidateFinder& finder, const Atom& atom, int slot, int top);

}  // namespace ntp
