// ntp/eval/completed_confidence.h: a mined rule judged by a trained model.
//
// Counting judges a rule h(X, Y) :- body(X, Y) on the training facts alone
// (mine/mined_rule.h): every pair (x, y) the body connects whose h(x, y) is
// not a training fact counts against the rule, though the KB may only lack
// that fact (each dev and test fact is such a pair for the rules that
// predict it). A trained model can tell the two apart. A rule's *completed
// confidence* is its confidence on the training facts completed by the model:
//
//   completed = |{(x, y) in pairs : h(x, y) is a training fact
//                                   or the model scores it >= 0.5}| / |pairs|
//
// with the model's own score (its combine rule, no mined rules: the rules
// are what is judged), and 0.5 where its training loss divides true from
// false. A rule the data implies moves toward 1 as the model infers the
// facts the KB lacks; a rule that only correlates with its head does not.
// (Ho et al., ISWC 2018, judge mined rules on a KB an embedding model
// completes, likewise.)
#pragma once

#include "ntp/eval/evaluate.h"
#include "ntp/mine/mined_rule.h"
#include "ntp/model/model.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace ntp {

// The score at which the model holds an atom true.
inline constexpr double kBelievedScore = 0.5;
// Pairs judged per rule at most: beyond, those of a sample of its subjects
// (drawn with a fixed seed), so a rule of millions of pairs costs no more.
inline constexpr int kMaxPairsJudged = 500;
// Random corruptions the judge's baseline (random_belief_rate) is measured on.
inline constexpr int kRandomCorruptions = 500;

struct CompletedConfidence {
  double confidence = 0;  // the completed confidence over the pairs judged
  long long pairs = 0;    // pairs judged
  long long facts = 0;    // of those, training facts
  long long inferred = 0; // of those, not training facts but scored >= kBelievedScore
};

// The share of random corruptions of the model's facts it holds true: each
// of `samples` training facts r(x, y), drawn with a fixed seed, with y
// replaced by a constant that makes no training fact. The judge's baseline:
// a rule judged near this share says nothing, and a model that holds most
// random atoms true (a ComplEx part trained 1-vs-all by a softmax, whose
// sigmoid is no probability) cannot judge at all.
double random_belief_rate(const Model& model, const ScoreOptions& scoring = {}, int samples = kRandomCorruptions);

// One per rule of `rules`, mined on model.kb's facts. Scores each distinct
// head atom of the rules' pairs once (score_atoms with `scoring`, whose
// source must be the model's own or one of its parts), calling `progress`
// with (atoms scored, atoms to score) as it goes. Chain rules only: throws
// std::invalid_argument for a rule with a constant.
std::vector<CompletedConfidence> completed_confidences(
    const Model& model, const std::vector<MinedRule>& rules, const ScoreOptions& scoring = {},
    int max_pairs = kMaxPairsJudged, const std::function<void(std::size_t, std::size_t)>& progress = nullptr);

}  // namespace ntp
