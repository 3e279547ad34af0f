// ntp/eval/metrics.h: the evaluation metrics of the three NTP protocols, as pure
// functions of scores and labels (the protocols that produce the scores are in
// evaluate.h).
#pragma once

#include <string>
#include <vector>

namespace ntp {

// What a ranking orders by: the score, and for atoms whose scores are exactly
// equal a second value (`tie_break`, e.g. a prover's proof support), so that
// ties are rare without the order among unequal scores ever changing.
// Compared lexicographically; with tie_break 0 everywhere it is the score alone.
struct RankKey {
  double score = 0;
  double tie_break = 0;
};
inline bool operator==(const RankKey& a, const RankKey& b) { return a.score == b.score && a.tie_break == b.tie_break; }
inline bool operator>(const RankKey& a, const RankKey& b) {
  return a.score > b.score || (a.score == b.score && a.tie_break > b.tie_break);
}

// Average precision of `scores` against 0/1 `labels`, as scikit-learn's
// average_precision_score: sum over distinct score thresholds, from high to
// low, of (recall_i - recall_{i-1}) * precision_i, where tied scores enter
// together. Countries reports it (x100) as "AUC-PR". Throws if there is no positive.
double average_precision(const std::vector<double>& scores, const std::vector<int>& labels);
// The same with keys: atoms enter together only when both values are equal.
double average_precision_by_key(const std::vector<RankKey>& keys, const std::vector<int>& labels);

// The rank of a true triple's score among its corruptions' scores, 1 = best.
// Ties are broken by the mean rank among equal scores: with g corruptions
// scoring strictly higher and e scoring equal, rank = 1 + g + e / 2.
// Throws on a NaN score (which would otherwise rank first).
double tie_mean_rank(double true_score, const std::vector<double>& corruption_scores);
// The optimistic rank, as the reference implementations compute it: ties all
// go below the true triple, rank = 1 + g. Reported beside the mean rank only
// to compare with published figures.
double tie_optimistic_rank(double true_score, const std::vector<double>& corruption_scores);
// The same two ranks ordered by keys (equal = equal in both values).
double tie_mean_rank_by_key(const RankKey& true_key, const std::vector<RankKey>& corruption_keys);
double tie_optimistic_rank_by_key(const RankKey& true_key, const std::vector<RankKey>& corruption_keys);
// Whether some corruption's key equals the true triple's: a rank decided by
// the tie rule rather than by the scores (counted in evaluation reports).
bool is_tied(const RankKey& true_key, const std::vector<RankKey>& corruption_keys);

struct RankingMetrics {
  double mrr = 0, hits1 = 0, hits3 = 0, hits10 = 0;
  int count = 0;  // ranks accumulated
};
// MRR and HITS@1/3/10 over a list of ranks (a fractional rank r counts for
// HITS@m when r <= m).
RankingMetrics ranking_metrics(const std::vector<double>& ranks);

// WN11 classification. A triple is predicted true when score >= threshold.
// best_threshold picks, for one set of (score, label) pairs with labels
// +1/-1, the threshold maximising accuracy (midpoints between consecutive
// distinct scores, plus one below all of them (all true) and one above all of
// them (all false), each 1 away); ties go to the lower threshold. Throws on
// empty input, mismatched sizes, labels other than +1/-1, or NaN scores.
double best_threshold(const std::vector<double>& scores, const std::vector<int>& labels);
double accuracy(const std::vector<double>& scores, const std::vector<int>& labels, double threshold);

}  // namespace ntp
