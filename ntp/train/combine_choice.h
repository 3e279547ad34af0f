// ntp/train/combine_choice.h: an NTPλ model's combine rule, chosen on dev.
//
// Training does not depend on the rule (config.h: the loss is the sum of the
// proof and ComplEx cross-entropies), so it can be chosen after training, as
// Keep::Best chooses the epoch: the dev metric (dev_metric.h) is measured
// with each of mean, max and proof, and the best is kept. Where ComplEx
// learns little, as on large KBs whose constants are each in a few facts,
// its scores only add noise to the proofs' (docs/RESULTS.md), and this is how
// a run finds out without a setting typed per data set.
#pragma once

#include "ntp/eval/evaluate.h"
#include "ntp/eval/ranking.h"
#include "ntp/kb/process_share.h"
#include "ntp/model/model.h"
#include "ntp/train/training_data.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace ntp {

// Dev facts ranked three times are costly on a large KB: at most this many,
// spread over the dev file (WN18RR: 3,034), are measured.
constexpr std::size_t kCombineChoiceDevAtoms = 500;
// They are ranked in rounds, under every rule in turn, so that a time
// budget or a stop can end the choice with the rounds done counted whole
// (a round cut short is dropped: CutAsked below). The first round ranks
// one atom; each next one twice as many, up to this many, while a round
// takes less than kQuickRoundSeconds: one atom took 1 min 54 s at widths
// 1, 2, 4 and 8 (WN18RR, a prover started from chain rules), and a round of
// twenty such, cut short, would throw away that much work.
constexpr std::size_t kCombineChoiceRound = 20;
constexpr double kQuickRoundSeconds = 2;

// What bounds a choice: a round that would end past `seconds` (0: no
// budget) at the pace so far is not started, and the dev atoms measured so
// far decide (a round whose ranking the budget cuts short is not counted;
// the first round never is); a raised `stop` ends it within the round under
// way, also not counted, keeping the
// best rule so far (the model's own with no round done), which train() then
// throws away (a stopped run makes that choice again when resumed).
// In a group of processes (`share`), each makes the same choice: the rounds
// end for all of them where one's budget or stop ends them.
struct ChoiceLimits {
  double seconds = 0;
  const std::atomic<bool>* stop = nullptr;
  ProcessShare share;
};

// Whether a stop was asked of any process of the group: a collective call,
// which every process makes at the same points of the same rounds.
bool stop_asked(const ChoiceLimits& limits);

// How far a choice's rounds got before it ended.
struct RoundsDone {
  std::size_t atoms = 0;     // dev atoms ranked
  bool over_budget = false;  // fewer than given: the time budget ran out
  bool stopped = false;      // fewer than given: a stop was asked for
};

// What a round's rankings ask of the limits (rank_in_rounds). One ranking
// can take minutes where one atom's pace foretold seconds (FB15k-237, a
// prover of chain rules at width 8: one dev atom at one width ran past ten
// minutes), so a stop and the budget reach into a ranking: each ranking of
// the round takes ranking() as its options, whose give_up says yes once this
// process would end the round (a stop asked, or after the first round the
// budget gone), and after each ranking the round asks ended().
class CutAsked {
 public:
  // `give_up`: thread-safe, this process alone; `agree(given_up)`: a
  // collective call, true when `given_up` is true on any process.
  CutAsked(std::function<bool()> give_up, std::function<bool(bool)> agree);
  const RankingOptions& ranking() const { return ranking_; }
  // After each of the round's rankings, a collective call that every process
  // of a group makes at the same point: true when this process or another
  // gave the ranking up; the round then ends there, uncounted.
  bool ended(const RankingResult& ranked) const { return agree_(ranked.given_up); }

 private:
  RankingOptions ranking_;
  std::function<bool(bool)> agree_;
};

// Hands `atoms` to `rank_round` in rounds (1, 2, 4, ... up to
// kCombineChoiceRound atoms, as above), until all are ranked, the next
// round would end past `limits.seconds` at the pace so far (one round is
// always ranked) or `limits.stop` is raised. A round ranks under several
// variants through `cut` (above), and returns false when it ended early:
// that round is not counted, and the rounds end as stopped or over budget.
// `progress` (may be null) gets "  ranked N/M dev atoms WHAT
// elapsed E  eta T" every 10 seconds and at the end. Shared by the choices
// made on dev after training (this one, mined_rules_choice.h, candidates_on_dev.h).
RoundsDone rank_in_rounds(const std::vector<Atom>& atoms, const ChoiceLimits& limits, std::ostream* progress,
                          const std::string& what,
                          const std::function<bool(const std::vector<Atom>&, const CutAsked& cut)>& rank_round);

// Each variant's reciprocal ranks over the rounds, [variant][side], in side
// order (subject then object, atom by atom), and how far the rounds got.
struct ReciprocalsInRounds {
  RoundsDone done;
  std::vector<std::vector<double>> reciprocal;
};
// rank_in_rounds, where `rank_round` ranks a round's atoms once per variant
// (`variants` rankings, in the same order every round), or returns none
// when it ended the round early because `cut.ended` said so (as above). What every choice
// ranked in rounds gathers: summed only at the end, in side order (mean_of,
// rule_choice.h), so that its figures do not depend on how the sides were
// split into rounds.
ReciprocalsInRounds reciprocals_in_rounds(
    const std::vector<Atom>& atoms, const ChoiceLimits& limits, std::ostream* progress, const std::string& what,
    std::size_t variants,
    const std::function<std::vector<RankingResult>(const std::vector<Atom>&, const CutAsked& cut)>& rank_round);

// What a choice's description adds when its rounds ended early: " (the
// time budget ran out: N atoms measured)", " (stopped after N atoms)", or "".
std::string rounds_cut_note(bool over_budget, bool stopped, std::size_t atoms);

// The MRR on the same dev atoms (at most `max_dev_atoms`, spread over the
// dev file) of each of `variants` ways of scoring `model`, set up by
// `apply(model, v)`: every round ranks its atoms under each variant in turn,
// through rank_in_rounds, and a stop or the budget ends the round within a ranking.
// Both are empty when no round ran.
struct VariantsMeasured {
  RoundsDone done;
  std::vector<double> mrr;                      // [variant]
  std::vector<std::vector<double>> reciprocal;  // [variant][side]: each side's reciprocal rank, subject then object
};
VariantsMeasured measure_variants(Model& model, const TrainingData& data, const ScoreOptions& scoring,
                                  std::size_t max_dev_atoms, const ChoiceLimits& limits, std::ostream* progress,
                                  const std::string& what, std::size_t variants,
                                  const std::function<void(Model&, std::size_t)>& apply);

struct CombineChoice {
  Combine chosen = Combine::Mean;
  std::vector<std::pair<Combine, double>> measured;  // each rule's dev metric, in the order tried
  std::size_t dev_atoms = 0;                         // how many dev atoms were measured
  bool over_budget = false;                          // fewer than asked: the time budget ran out
  bool stopped = false;                              // fewer than asked: stopped

  // The chosen rule's dev metric (-1 if nothing was measured).
  double chosen_metric() const {
    for (const auto& [rule, metric] : measured)
      if (rule == chosen) return metric;
    return -1;
  }
};

// Throws std::invalid_argument unless a combine rule can be chosen: an NTPλ
// model (`complex`) and dev atoms in `data`. train() asks before training.
void check_combine_choice(bool complex, const TrainingData& data);

// Measures `model`'s dev metric with each rule (mean first: on an exact tie
// the earlier rule stays) on the same dev atoms, and sets
// model.prover.combine to the best. Checks check_combine_choice first.
// `progress` (may be null) gets a line every few seconds with the atoms
// ranked, the time taken and left, and each rule's metric at the end.
CombineChoice choose_combine(Model& model, const TrainingData& data,
                             std::size_t max_dev_atoms = kCombineChoiceDevAtoms, std::ostream* progress = nullptr,
                             const ChoiceLimits& limits = {});

// "proof (dev mrr on 500 atoms: mean 0.7896, max 0.8961, proof 0.9265)",
// and when cut short "..., 60 of 500 atoms within the time budget)".
std::string describe(const CombineChoice& choice, const std::string& metric);

}  // namespace ntp
