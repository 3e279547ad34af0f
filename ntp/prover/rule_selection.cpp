// ntp/prover/rule_selection.cpp: rules by the distance of their heads.
#include "ntp/prover/rule_selection.h"

#include <algorithm>

namespace ntp {

std::vector<int> nearest_rules(const Model& model, int row, int arity, int k) {
  std::vector<std::pair<float, int>> scored;
  const auto goal = model.predicates.value.row(row);
  for (std::size_t r = 0; r < model.rules.size(); ++r) {
    const RuleAtom& head = model.rules[r].head;
    if (static_cast<int>(head.args.size()) != arity) continue;
    // A conditional rule has no head to compare: it is always among the nearest.
    const bool near = k <= 0 || model.rules[r].conditional;
    const float dist = !near ? static_cast<float>((model.predicates.value.row(head.predicate.id) - goal).squaredNorm()) : 0.0f;
    scored.emplace_back(dist, static_cast<int>(r));
  }
  std::vector<int> ids;
  if (k > 0) {
    const std::size_t keep = std::min(static_cast<std::size_t>(k), scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep), scored.end());
    scored.resize(keep);
  }
  for (const auto& s : scored) ids.push_back(s.second);
  return ids;
}

}  // namespace ntp
