// ntp/prover/rule_selection.h: which rules an `or` step tries.
#pragma once

#include "ntp/model/model.h"

#include <vector>

namespace ntp {

// The rules whose heads are nearest to predicate row `row` (k = 0: all rules,
// in order). Rules whose head arity differs are never returned; conditional
// rules (no head to compare) count as nearest.
std::vector<int> nearest_rules(const Model& model, int row, int arity, int k);

}  // namespace ntp
