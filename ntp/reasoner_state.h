// ntp/reasoner_state.h: what a Reasoner holds (ntp.h keeps it opaque, so
// that the public header needs neither the tape nor the fact index).
#pragma once

#include "ntp/ntp.h"

#include "ntp/eval/evaluate.h"
#include "ntp/index/fact_index.h"
#include "ntp/model/model.h"
#include "ntp/model/rules.h"

#include <memory>

namespace ntp {

struct Reasoner::State {
  Model model;           // with the SearchOptions' k put in
  SearchOptions options;
  RuleReadings readings;  // per rule: its reading and confidence, for Step::reading

  // Built for each call: a Reasoner may be shared by threads.
  std::unique_ptr<FactIndex> fact_index() const;
  // How score() and answer() score: with the SearchOptions' index.
  ScoreOptions scoring() const;
  Explanation explain(const Atom& atom, int top_proofs, FactIndex& facts) const;
};

}  // namespace ntp
