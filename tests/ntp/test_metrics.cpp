// tests/ntp/test_metrics.cpp: the evaluation metrics on cases worked out by hand.
#include <doctest/doctest.h>

#include "ntp/eval/metrics.h"

#include <cmath>
#include <stdexcept>

using doctest::Approx;

TEST_CASE("average_precision on a ranking without ties") {
  // scores 0.9 0.8 0.7 0.6 0.5 0.4, labels 1 0 1 1 0 0; P = 3 positives.
  // threshold 0.9: tp 1, fp 0: precision 1,   recall 1/3: + (1/3 - 0)   * 1   = 1/3
  // threshold 0.8: tp 1, fp 1: precision 1/2, recall 1/3: + 0
  // threshold 0.7: tp 2, fp 1: precision 2/3, recall 2/3: + (2/3 - 1/3) * 2/3 = 2/9
  // threshold 0.6: tp 3, fp 1: precision 3/4, recall 1:   + (1 - 2/3)   * 3/4 = 1/4
  // 0.5 and 0.4 add no recall. AP = 1/3 + 2/9 + 1/4 = (12 + 8 + 9) / 36 = 29/36.
  const std::vector<double> scores = {0.9, 0.8, 0.7, 0.6, 0.5, 0.4};
  CHECK(ntp::average_precision(scores, {1, 0, 1, 1, 0, 0}) == Approx(29.0 / 36.0));

  // The order of the input does not matter, only the scores.
  CHECK(ntp::average_precision({0.5, 0.6, 0.9, 0.4, 0.7, 0.8}, {0, 1, 1, 0, 1, 0}) == Approx(29.0 / 36.0));

  // scikit-learn's documentation example: y = 0 0 1 1, scores 0.1 0.4 0.35 0.8.
  // 0.8: tp 1 fp 0, P 1, R 1/2: + 1/2; 0.4: no recall; 0.35: tp 2 fp 1, P 2/3, R 1: + 1/2 * 2/3.
  // AP = 1/2 + 1/3 = 0.8333...
  CHECK(ntp::average_precision({0.1, 0.4, 0.35, 0.8}, {0, 0, 1, 1}) == Approx(5.0 / 6.0));

  CHECK(ntp::average_precision({0.3, 0.2}, {1, 1}) == Approx(1.0));
  CHECK(ntp::average_precision({0.9, 0.8, 0.1}, {0, 0, 1}) == Approx(1.0 / 3.0));  // one positive, ranked 3rd
}

TEST_CASE("average_precision lets tied scores enter together") {
  // scores 0.8 0.8 0.3, labels 0 1 1; P = 2.
  // threshold 0.8 (both tied entries at once): tp 1, fp 1: precision 1/2, recall 1/2: + 1/2 * 1/2 = 1/4
  // threshold 0.3: tp 2, fp 1: precision 2/3, recall 1: + 1/2 * 2/3 = 1/3
  // AP = 1/4 + 1/3 = 7/12, whatever the order of the tied entries. Breaking the
  // tie by position would give 1/2 + 1/3 = 5/6 when the positive comes first.
  CHECK(ntp::average_precision({0.8, 0.8, 0.3}, {0, 1, 1}) == Approx(7.0 / 12.0));
  CHECK(ntp::average_precision({0.8, 0.8, 0.3}, {1, 0, 1}) == Approx(7.0 / 12.0));

  // All scores tied: one threshold, precision = P / n = 2/5, recall 1.
  CHECK(ntp::average_precision({0.5, 0.5, 0.5, 0.5, 0.5}, {1, 0, 0, 1, 0}) == Approx(0.4));
}

TEST_CASE("average_precision refuses bad input") {
  CHECK_THROWS_AS(ntp::average_precision({0.1, 0.2}, {0, 0}), std::invalid_argument);  // no positive
  CHECK_THROWS_AS(ntp::average_precision({0.1, 0.2}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::average_precision({}, {}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::average_precision({0.1, 0.2}, {1, -1}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::average_precision({std::nan(""), 0.2}, {1, 0}), std::invalid_argument);
}

TEST_CASE("tie_mean_rank") {
  // True score 0.5; corruptions 0.9 (beats it), 0.5 and 0.5 (tied), 0.1.
  // rank = 1 + 1 greater + 2 equal / 2 = 3.
  CHECK(ntp::tie_mean_rank(0.5, {0.9, 0.5, 0.1, 0.5}) == 3.0);
  CHECK(ntp::tie_mean_rank(0.5, {}) == 1.0);
  CHECK(ntp::tie_mean_rank(0.5, {0.1, 0.2}) == 1.0);
  CHECK(ntp::tie_mean_rank(0.5, {0.6, 0.7}) == 3.0);
  CHECK(ntp::tie_mean_rank(0.5, {0.5}) == 1.5);  // one tie: halfway between rank 1 and 2
  CHECK(ntp::tie_mean_rank(0.5, {0.5, 0.5, 0.5}) == 2.5);
  CHECK_THROWS_AS(ntp::tie_mean_rank(std::nan(""), {0.1}), std::invalid_argument);
  // Optimistic: every tie ranks below the true triple.
  CHECK(ntp::tie_optimistic_rank(0.5, {0.9, 0.5, 0.1, 0.5}) == 2.0);
  CHECK(ntp::tie_optimistic_rank(0.5, {0.5, 0.5, 0.5}) == 1.0);
  CHECK(ntp::tie_optimistic_rank(0.5, {0.6, 0.7}) == 3.0);
  CHECK_THROWS_AS(ntp::tie_optimistic_rank(0.5, {std::nan("")}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::tie_mean_rank(0.5, {0.1, std::nan("")}), std::invalid_argument);
}

TEST_CASE("rank keys order equal scores by their tie-break, and only those") {
  using K = ntp::RankKey;
  // True key (0.5, 2). Corruptions: (0.9, 0) beats it on the score whatever
  // its tie-break; (0.5, 3) beats it on the tie-break; (0.5, 1) loses on it;
  // (0.5, 2) is tied in both; (0.1, 9) loses on the score.
  const std::vector<K> corruptions = {{0.9, 0}, {0.5, 3}, {0.5, 1}, {0.5, 2}, {0.1, 9}};
  CHECK(ntp::tie_mean_rank_by_key({0.5, 2}, corruptions) == 3.5);        // 1 + 2 greater + 1 equal / 2
  CHECK(ntp::tie_optimistic_rank_by_key({0.5, 2}, corruptions) == 3.0);  // 1 + 2 greater
  CHECK(ntp::is_tied({0.5, 2}, corruptions));
  CHECK_FALSE(ntp::is_tied({0.5, 2.5}, corruptions));
  // With every tie-break at 0 the keys rank as the plain scores do.
  CHECK(ntp::tie_mean_rank_by_key({0.5, 0}, {{0.9, 0}, {0.5, 0}, {0.1, 0}}) == ntp::tie_mean_rank(0.5, {0.9, 0.5, 0.1}));
  CHECK_THROWS_AS(ntp::tie_mean_rank_by_key({0.5, std::nan("")}, {{0.1, 0}}), std::invalid_argument);
  // Average precision: scores 0.8, 0.8, 0.3 with labels 1, 0, 1 tie at the top
  // (AP 7/12, above); a tie-break putting the positive first gives ranks
  // 1 (P), 2 (N), 3 (P): AP = (1/2)(1/1) + (1/2)(2/3) = 5/6.
  CHECK(ntp::average_precision_by_key({{0.8, 1}, {0.8, 0}, {0.3, 0}}, {1, 0, 1}) == Approx(5.0 / 6.0));
  CHECK(ntp::average_precision_by_key({{0.8, 0}, {0.8, 0}, {0.3, 0}}, {1, 0, 1}) == Approx(7.0 / 12.0));
}

TEST_CASE("ranking_metrics") {
  // ranks 1 2 3 4 10 11:
  // MRR = (1 + 1/2 + 1/3 + 1/4 + 1/10 + 1/11) / 6 = 2.2742424... / 6 = 0.3790404...
  // HITS@1 = 1/6 (rank 1), HITS@3 = 3/6 (1, 2, 3), HITS@10 = 5/6 (all but 11).
  const ntp::RankingMetrics m = ntp::ranking_metrics({1, 2, 3, 4, 10, 11});
  CHECK(m.count == 6);
  CHECK(m.mrr == Approx((1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 10 + 1.0 / 11) / 6));
  CHECK(m.mrr == Approx(0.3790404).epsilon(1e-6));
  CHECK(m.hits1 == Approx(1.0 / 6));
  CHECK(m.hits3 == Approx(3.0 / 6));
  CHECK(m.hits10 == Approx(5.0 / 6));

  // Fractional ranks from ties: 1.5 is not a hit at 1 but is at 3; 3.5 only at 10.
  // MRR = (1/1.5 + 1/3.5) / 2 = (2/3 + 2/7) / 2 = 10/21.
  const ntp::RankingMetrics f = ntp::ranking_metrics({1.5, 3.5});
  CHECK(f.mrr == Approx(10.0 / 21.0));
  CHECK(f.hits1 == 0.0);
  CHECK(f.hits3 == Approx(0.5));
  CHECK(f.hits10 == Approx(1.0));

  const ntp::RankingMetrics empty = ntp::ranking_metrics({});
  CHECK(empty.count == 0);
  CHECK(empty.mrr == 0.0);
  CHECK_THROWS_AS(ntp::ranking_metrics({0.5}), std::invalid_argument);
}

TEST_CASE("best_threshold and accuracy, separable") {
  // scores 0.1 0.2 | 0.6 0.9 with labels -1 -1 | 1 1: the midpoint 0.4 separates them.
  // Sweep from below all (2 right: the positives) past 0.1 (3 right) and 0.2 (4 right).
  const std::vector<double> scores = {0.6, 0.1, 0.9, 0.2};
  const std::vector<int> labels = {1, -1, 1, -1};
  const double t = ntp::best_threshold(scores, labels);
  CHECK(t == Approx(0.4));
  CHECK(ntp::accuracy(scores, labels, t) == 1.0);
  CHECK(ntp::accuracy(scores, labels, 0.0) == 0.5);  // all predicted true
  CHECK(ntp::accuracy(scores, labels, 0.6) == 1.0);  // score >= threshold counts as true
  CHECK(ntp::accuracy(scores, labels, 0.61) == 0.75);
}

TEST_CASE("best_threshold and accuracy, not separable") {
  // scores 0.1 0.3 0.4 0.7 0.8, labels -1 1 -1 1 -1. Right answers at each candidate:
  //   below all (-0.9): the 2 positives            -> 2
  //   0.2  (above 0.1): + the negative at 0.1     -> 3  best so far
  //   0.35 (above 0.3): - the positive at 0.3     -> 2
  //   0.55 (above 0.4): + the negative at 0.4     -> 3  tie: keep the lower 0.2
  //   0.75 (above 0.7): - the positive at 0.7     -> 2
  //   1.8  (above all): + the negative at 0.8     -> 3  tie again
  const std::vector<double> scores = {0.1, 0.3, 0.4, 0.7, 0.8};
  const std::vector<int> labels = {-1, 1, -1, 1, -1};
  const double t = ntp::best_threshold(scores, labels);
  CHECK(t == Approx(0.2));
  CHECK(ntp::accuracy(scores, labels, t) == Approx(0.6));
  CHECK(ntp::accuracy(scores, labels, 0.55) == Approx(0.6));
  CHECK(ntp::accuracy(scores, labels, 0.35) == Approx(0.4));

  // Tied scores move together: 0.5 0.5 0.2 with labels 1 -1 -1.
  // below all: 1 right; 0.35: 2 right; above all: 2 right (tie, lower kept).
  CHECK(ntp::best_threshold({0.5, 0.5, 0.2}, {1, -1, -1}) == Approx(0.35));

  // Only negatives: the threshold above all scores (max + 1) gets them all.
  const double above = ntp::best_threshold({0.3, 0.5}, {-1, -1});
  CHECK(above == Approx(1.5));
  CHECK(ntp::accuracy({0.3, 0.5}, {-1, -1}, above) == 1.0);
  // Only positives: below all (min - 1).
  CHECK(ntp::best_threshold({0.3, 0.5}, {1, 1}) == Approx(-0.7));
}

TEST_CASE("best_threshold and accuracy refuse bad input") {
  CHECK_THROWS_AS(ntp::best_threshold({}, {}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::best_threshold({0.1}, {0}), std::invalid_argument);  // labels are +1/-1
  CHECK_THROWS_AS(ntp::best_threshold({0.1, 0.2}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(ntp::accuracy({0.1}, {1, -1}, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(ntp::accuracy({0.1}, {0}, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(ntp::accuracy({std::nan("")}, {1}, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(ntp::best_threshold({std::nan(""), 0.1}, {1, -1}), std::invalid_argument);
}
