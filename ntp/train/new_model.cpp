// ntp/train/new_model.cpp: a fresh model for training (see new_model.h).
#include "ntp/train/new_model.h"

#include "ntp/model/conditional.h"
#include "ntp/model/rule_attention.h"

#include <utility>

namespace ntp {

Model new_model(TrainingData data, const ModelOptions& o) {
  check_options(o);
  ProverConfig prover = o.prover;
  prover.k_rules = rules_tried_per_goal(data, prover.k_rules);  // mined templates: a goal tries its own head's rules
  Model m = make_model(std::move(data.kb), o.dim, prover, o.seed);
  m.constants.value *= o.constant_init;
  if (o.attention) add_rule_attention(m, o.seed);
  if (o.reformulator != Reformulator::None) add_conditioning(m, o.reformulator, o.seed);
  m.filter_facts = std::move(data.dev);
  m.filter_facts.insert(m.filter_facts.end(), data.test.begin(), data.test.end());
  return m;
}

}  // namespace ntp
