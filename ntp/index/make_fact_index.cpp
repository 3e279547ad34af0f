// ntp/index/make_fact_index.cpp: the engine a kind names.
#include "ntp/index/make_fact_index.h"

#include "ntp/index/constant_index.h"
#include "ntp/index/table_index.h"

namespace ntp {

std::unique_ptr<FactIndex> make_fact_index(const Model& model, const std::string& kind,
                                           const FactIndexOptions& options) {
  check_fact_index_kind(kind);
  if (kind == "table" || (kind == "auto" && TableIndex::fits(model))) return std::make_unique<TableIndex>(model, options.update_every);
  if (kind == "brute") return std::make_unique<ConstantIndex>(model, ConstantIndex::Lookup::Scan, options);
  if (kind == "exact") return std::make_unique<ConstantIndex>(model, ConstantIndex::Lookup::Listed, options);
  if (kind == "kdtree") return std::make_unique<ConstantIndex>(model, ConstantIndex::Lookup::KdTree, options);
  return std::make_unique<ConstantIndex>(model, ConstantIndex::Lookup::Hnsw, options);
}

}  // namespace ntp
