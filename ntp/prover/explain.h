// ntp/prover/explain.h: a proof path as readable data (ntp.h's Proof): each step's
// goal with its variables named, the fact or rule used, what it bound and the
// kernel of every symbol pair it compared.
#pragma once

#include "ntp/prover/explanation.h"
#include "ntp/model/rules.h"
#include "ntp/prover/prover.h"

#include <string>
#include <vector>

namespace ntp {

// `path` must come from a search with explain = true for `goal`;
// `goal_variables` names the goal's variable arguments (may be empty when
// the goal is ground).
Proof describe_path(const Model& model, const ProofPath& path, const Atom& goal,
                    const std::vector<std::string>& goal_variables, const RuleReadings& readings);

}  // namespace ntp
