// ntp/eval/metrics.cpp: average precision (Countries), tie-aware ranks and
// MRR/HITS@k (Kinship, Nations, UMLS), and threshold accuracy (WN11).
#include "ntp/eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ntp {
namespace {

void check_sizes(const char* who, std::size_t scores, std::size_t labels) {
  if (scores != labels) {
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(scores) + " scores but " +
                                std::to_string(labels) + " labels");
  }
  if (scores == 0) throw std::invalid_argument(std::string(who) + ": no scores");
}

bool is_nan(double s) { return std::isnan(s); }
bool is_nan(const RankKey& k) { return std::isnan(k.score) || std::isnan(k.tie_break); }

template <class Score>
void check_not_nan(const char* who, const std::vector<Score>& scores) {
  for (const Score& s : scores) {
    if (is_nan(s)) throw std::invalid_argument(std::string(who) + ": a score is NaN");
  }
}

std::vector<RankKey> keys_of(const std::vector<double>& scores) {
  std::vector<RankKey> keys;
  keys.reserve(scores.size());
  for (double s : scores) keys.push_back({s, 0});
  return keys;
}

// Indices of `scores` from the lowest score to the highest.
std::vector<std::size_t> order_by_score(const std::vector<double>& scores) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  return order;
}

// How many corruptions rank strictly above, and exactly equal to, the true triple.
std::pair<double, double> above_and_equal(const char* what, const RankKey& true_key,
                                          const std::vector<RankKey>& corruptions) {
  // A NaN would compare false with everything and rank the triple first.
  if (is_nan(true_key)) throw std::invalid_argument(std::string(what) + ": the true score is NaN");
  check_not_nan(what, corruptions);
  double greater = 0, equal = 0;
  for (const RankKey& k : corruptions) {
    if (k > true_key) {
      greater += 1;
    } else if (k == true_key) {
      equal += 1;
    }
  }
  return {greater, equal};
}

}  // namespace

// With the scores sorted from high to low and cut after each group of equal
// scores (threshold i), precision_i = tp_i / (tp_i + fp_i) and recall_i =
// tp_i / P; AP = sum_i (recall_i - recall_{i-1}) * precision_i, recall_0 = 0.
double average_precision(const std::vector<double>& scores, const std::vector<int>& labels) {
  return average_precision_by_key(keys_of(scores), labels);
}

double average_precision_by_key(const std::vector<RankKey>& keys, const std::vector<int>& labels) {
  check_sizes("average_precision", keys.size(), labels.size());
  check_not_nan("average_precision", keys);
  long positives = 0;
  for (int l : labels) {
    if (l != 0 && l != 1) throw std::invalid_argument("average_precision: labels must be 0 or 1");
    positives += l;
  }
  if (positives == 0) throw std::invalid_argument("average_precision: no positive label");
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] > keys[b]; });
  long tp = 0, fp = 0;
  double ap = 0, previous_recall = 0;
  for (std::size_t i = 0; i < order.size();) {
    const RankKey threshold = keys[order[i]];
    for (; i < order.size() && keys[order[i]] == threshold; ++i) (labels[order[i]] == 1 ? tp : fp) += 1;
    const double recall = static_cast<double>(tp) / static_cast<double>(positives);
    const double precision = static_cast<double>(tp) / static_cast<double>(tp + fp);
    ap += (recall - previous_recall) * precision;
    previous_recall = recall;
  }
  return ap;
}

double tie_mean_rank(double true_score, const std::vector<double>& corruption_scores) {
  return tie_mean_rank_by_key(RankKey{true_score, 0}, keys_of(corruption_scores));
}

double tie_optimistic_rank(double true_score, const std::vector<double>& corruption_scores) {
  return tie_optimistic_rank_by_key(RankKey{true_score, 0}, keys_of(corruption_scores));
}

double tie_mean_rank_by_key(const RankKey& true_key, const std::vector<RankKey>& corruption_keys) {
  const auto [greater, equal] = above_and_equal("tie_mean_rank", true_key, corruption_keys);
  return 1 + greater + equal / 2;
}

double tie_optimistic_rank_by_key(const RankKey& true_key, const std::vector<RankKey>& corruption_keys) {
  return 1 + above_and_equal("tie_optimistic_rank", true_key, corruption_keys).first;
}

bool is_tied(const RankKey& true_key, const std::vector<RankKey>& corruption_keys) {
  return above_and_equal("is_tied", true_key, corruption_keys).second > 0;
}

RankingMetrics ranking_metrics(const std::vector<double>& ranks) {
  RankingMetrics m;
  for (double r : ranks) {
    if (!(r >= 1)) throw std::invalid_argument("ranking_metrics: rank " + std::to_string(r) + " is below 1");
    m.mrr += 1 / r;
    m.hits1 += r <= 1 ? 1 : 0;
    m.hits3 += r <= 3 ? 1 : 0;
    m.hits10 += r <= 10 ? 1 : 0;
  }
  m.count = static_cast<int>(ranks.size());
  if (m.count > 0) {
    m.mrr /= m.count;
    m.hits1 /= m.count;
    m.hits3 /= m.count;
    m.hits10 /= m.count;
  }
  return m;
}

// Sweeps the candidate thresholds from low to high. Below all scores every
// triple is predicted true, so the positives are right; raising the threshold
// past a group of equal scores flips that group to false, which gains its
// negatives and loses its positives.
double best_threshold(const std::vector<double>& scores, const std::vector<int>& labels) {
  check_sizes("best_threshold", scores.size(), labels.size());
  check_not_nan("best_threshold", scores);
  long correct = 0;
  for (int l : labels) {
    if (l != 1 && l != -1) throw std::invalid_argument("best_threshold: labels must be 1 or -1");
    correct += l == 1 ? 1 : 0;
  }
  const std::vector<std::size_t> order = order_by_score(scores);
  double best = scores[order.front()] - 1;
  long best_correct = correct;
  for (std::size_t i = 0; i < order.size();) {
    const double score = scores[order[i]];
    for (; i < order.size() && scores[order[i]] == score; ++i) correct += labels[order[i]] == 1 ? -1 : 1;
    if (correct > best_correct) {
      best_correct = correct;
      best = i < order.size() ? (score + scores[order[i]]) / 2 : score + 1;
    }
  }
  return best;
}

double accuracy(const std::vector<double>& scores, const std::vector<int>& labels, double threshold) {
  check_sizes("accuracy", scores.size(), labels.size());
  check_not_nan("accuracy", scores);
  std::size_t correct = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (labels[i] != 1 && labels[i] != -1) throw std::invalid_argument("accuracy: labels must be 1 or -1");
    correct += (scores[i] >= threshold) == (labels[i] == 1) ? 1 : 0;
  }
  return static_cast<double>(correct) / static_cast<double>(scores.size());
}

}  // namespace ntp
