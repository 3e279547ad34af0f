// ntp/train/width_choice.h: how many facts a trained model's proofs keep
// per `or` step when it ranks and answers, chosen on dev.
//
// Training keeps k facts per `or` step (NTP 2.0's k = 1), the nearest by the
// summed squared distance between goal and fact. That fact need not be the
// one whose least kernel is best, which is what a proof scores; keeping a
// few more lets the max over proofs find it. On Nations dev the proofs alone
// rank 0.02-0.05 MRR higher at 2 to 8 facts than at 1, and test with them
// (docs/results/search_width.md); exhaustive search ranks below k = 1,
// since training never pushed away the facts only it would meet. So the
// width is measured on dev after training, proofs alone, and the model file
// keeps the best: `ntp eval`, `answer` and `prove` then search as wide
// (`--k` still overrides). Training itself is untouched.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/training_data.h"

#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace ntp {

// The widths tried: the trained k times 1, 2, 4 and 8. Wider ones ranked
// Nations dev no better (16 and 32 below the best on every seed).
constexpr int kWidthFactors[] = {1, 2, 4, 8};

struct WidthChoice {
  int chosen = 0;                                 // facts per `or` step
  std::vector<std::pair<int, double>> measured;   // each width's dev metric, narrowest first
  std::vector<std::vector<double>> reciprocal;    // [width][side]: each dev side's reciprocal rank
  std::size_t dev_atoms = 0;                      // how many dev atoms were measured
  bool over_budget = false;                       // fewer than asked: the time budget ran out
  bool stopped = false;                           // fewer than asked: stopped
};

// Whether a model's width is worth choosing: it searches by nearest facts
// (k >= 1, not exhaustive), its score uses its proofs (not the ComplEx
// score alone), and there are dev facts to rank. A labelled dev file (WN11)
// is not used: the width was studied on rankings, not on accuracy.
bool can_choose_width(const Model& model, const TrainingData& data);

// Measures `model`'s dev metric with its proofs alone at each width (the
// same dev atoms for every width, in rounds bounded by `limits`) and sets
// model.prover.k_facts to the narrowest width that the best is not clearly
// better than (rule_choice.h: by more than two standard errors of their
// paired difference). A wider search costs time and memory at every query,
// and a width chosen inside dev's noise changes the choices after it (L2,
// the combine rule) for nothing: on the family KB's 33 dev facts, one side
// ranked higher at width 2 lifted the other L2 value's model to a tie, the
// L2 choice then kept it, and it judged one planted rule fewer.
// `progress` (may be null) gets the rounds' progress and each width's metric.
WidthChoice choose_width(Model& model, const TrainingData& data, std::size_t max_dev_atoms = kCombineChoiceDevAtoms,
                         std::ostream* progress = nullptr, const ChoiceLimits& limits = {});

// "2 (dev mrr of the proofs alone on 199 atoms: 1 0.7768, 2 0.7896, ...)".
std::string describe(const WidthChoice& choice, const std::string& metric);

}  // namespace ntp
