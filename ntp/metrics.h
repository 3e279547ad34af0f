// ntp/metrics.h: the evaluation metrics of the three NTP protocols, as pure
// functions of scores and labels (the protocols that produce the scores are in
// evaluate.h).
#pragma once

#include <string>
#include <vector>

namespace ntp {

// Average precision of `scores` against 0/1 `labels`, as scikit-learn's
// average_precision_score: sum over distinct score thresholds, from high to
// low, of (recall_i - recall_{i-1}) * precision_i, where tied scores enter
// together. Countries reports it (x100) as "AUC-PR". Throws if there is no positive.
double average_precision(const std::vector<double>& scores, const std::vector<int>& labels);

// The rank of a true triple's score among its corruptions' scores, 1 = best.
// Ties are broken by the mean rank among equal scores: with g corruptions
// scoring strictly higher and e scoring equal, rank = 1 + g + e / 2.
// Throws on a NaN score (which would otherwise rank first).
double tie_mean_rank(double true_score, const std::vector<double>& corruption_scores);
// The optimistic rank, as the reference implementations compute it: ties all
// go below the true triple, rank = 1 + g. Reported beside the mean rank only
// to compare with published figures.
double tie_optimistic_rank(double true_score, const std::vector<double>& corruption_scores);

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
