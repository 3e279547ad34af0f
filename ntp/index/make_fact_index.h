// ntp/index/make_fact_index.h: the one place that knows every engine.
#pragma once

#include "ntp/index/fact_index.h"

#include <memory>
#include <string>

namespace ntp {

// The engine `kind` names, over `model` (which it reads, never changes).
// Throws std::invalid_argument naming the kinds for an unknown one.
std::unique_ptr<FactIndex> make_fact_index(const Model& model, const std::string& kind,
                                           const FactIndexOptions& options = {});

}  // namespace ntp
