// ntp/reasoner_state.h: what a Reasoner holds (ntp.h keeps it opaque, so
// that the public header needs neither the tape nor the fact index). Copies
// of a Reasoner share one State, which no call changes.
#pragma once

#include "ntp/ntp.h"

#include "ntp/eval/evaluate.h"
#include "ntp/eval/ranking.h"
#include "ntp/index/fact_index.h"
#include "ntp/mine/relation_graph.h"
#include "ntp/model/model.h"
#include "ntp/model/rules.h"

#include <memory>
#include <mutex>

namespace ntp {

struct Reasoner::State {
  Model model;           // with the SearchOptions' k put in
  SearchOptions options;
  RuleReadings readings;  // per rule: its reading and confidence, for Step::reading
  // Built once, over `model`, and searched by every call: the model never
  // changes, so the index never needs updating, and searching it is safe from
  // several threads at once (FactIndex::nearest).
  std::shared_ptr<FactIndex> facts;

  // Answers' candidate search over `facts`, built on the first answer that
  // needs it (seconds on a large KB), then shared.
  const CandidateFinder& candidates() const;
  mutable std::once_flag candidates_built;
  mutable std::unique_ptr<CandidateFinder> finder;

  // The KB's facts as a graph, for the mined rules (Model::mined_rules) to
  // walk in answers and proofs: built on the first call that needs it, then shared.
  const RelationGraph& rule_graph() const;
  mutable std::once_flag rule_graph_built;
  mutable std::unique_ptr<RelationGraph> graph;

  // The ranking keys of atoms, as the ranking protocol orders them.
  std::vector<RankKey> rank_keys(const std::vector<Atom>& atoms) const;
  Explanation explain(const Atom& atom, int top_proofs) const;  // through `facts`
  // The phrase an atom's or a query's text names when the model has word
  // embeddings but never saw that phrase (model/mentions.h); {} otherwise.
  // Such a text is proven or answered by a copy of the model that encodes it.
  std::vector<std::string> unseen_phrase(const std::string& text) const;
};

}  // namespace ntp
