// ntp/eval/protocol.h: an evaluation as a program asks for it, by names and
// files, and its report as people and programs read it. `ntp eval` is this
// and nothing more: it parses its options into an EvalRequest and prints the
// EvalReport.
#pragma once

#include "ntp/eval/evaluate.h"
#include "ntp/eval/request.h"

#include <string>
#include <vector>

namespace ntp {

// Checks the request's names (protocol, score, tie-break, index) against
// the model, then runs the protocol. Throws std::invalid_argument for a bad
// name or a score the model cannot give, ParseError for a bad file.
// `facts`, when given, is the index searched unless the request names
// another kind (a Reasoner passes its own; otherwise one is built).
EvalReport evaluate(const Model& model, const EvalRequest& request, std::shared_ptr<FactIndex> facts = nullptr);

// The source a --score name asks for; std::invalid_argument for an unknown
// name, or for a ComplEx-based one on a model trained without ComplEx.
ScoreSource score_source_from_name(const std::string& name, const Model& model);

}  // namespace ntp
