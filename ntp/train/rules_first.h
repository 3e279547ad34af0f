// ntp/train/rules_first.h: mined rules ranked before a trained model's
// score, kept when dev says they help.
//
// After training, the rules the training facts support are mined
// (mine/miner.h at its defaults, or the one-atom rules alone when those rank
// the dev facts better: rule_choice.h), and the dev facts the combine choice
// measures (at most kCombineChoiceDevAtoms) are ranked twice: by the model
// alone, and with the rules first and the model ordering what they tie
// (rank_rules_first, eval/rule_ranking.h). The rules go into the model
// (Model::rules_first) when they rank better; `ntp eval` then ranks with
// them, and its --score names the neural parts alone. On Nations the
// one-atom rules beat the proofs and ComplEx; on Kinship they do not.
#pragma once

#include "ntp/model/model.h"
#include "ntp/train/combine_choice.h"
#include "ntp/train/training_data.h"

#include <cstddef>
#include <iosfwd>
#include <string>

namespace ntp {

struct RulesFirstChoice {
  bool measured = false;   // false: no dev facts to rank, or nothing mined
  bool kept = false;       // the rules went into the model
  std::size_t rules = 0;   // how many were tried
  std::string rule_set;    // which set (choose_rule_set's description)
  double model_alone = -1, with_rules = -1;  // dev MRR of each
  std::size_t dev_atoms = 0;                 // dev atoms ranked
  bool over_budget = false, stopped = false;  // fewer atoms than asked: the limits ended it
};

// Whether `data` has what the choice needs: ranked (not labelled) dev facts, all binary.
bool can_choose_rules_first(const TrainingData& data);

// Mines, measures and, when the rules help, sets model.rules_first. Ranks
// in rounds of kCombineChoiceRound atoms within `limits`; `progress` (may be
// null) gets a line every few seconds and the two figures at the end.
RulesFirstChoice choose_rules_first(Model& model, const TrainingData& data,
                                    std::size_t max_dev_atoms = kCombineChoiceDevAtoms, std::ostream* progress = nullptr,
                                    const ChoiceLimits& limits = {});

// "kept: one-atom rules (3,857) first, dev mrr 0.8366 against 0.7900 for the model alone on 199 atoms"
std::string describe(const RulesFirstChoice& choice);

}  // namespace ntp
