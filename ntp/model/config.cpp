// ntp/model/config.cpp: names of the settings, and their checks.
#include "ntp/model/config.h"

#include <stdexcept>

namespace ntp {

const char* combine_name(Combine rule) {
  switch (rule) {
    case Combine::Max: return "max";
    case Combine::Mean: return "mean";
    case Combine::Proof: return "proof";
    case Combine::Complex: return "complex";
  }
  return "?";
}

bool combine_from_name(const std::string& name, Combine* rule) {
  for (const Combine r : {Combine::Max, Combine::Mean, Combine::Proof, Combine::Complex})
    if (name == combine_name(r)) {
      *rule = r;
      return true;
    }
  return false;
}

const char* reformulator_name(Reformulator kind) {
  switch (kind) {
    case Reformulator::None: return "none";
    case Reformulator::Linear: return "linear";
    case Reformulator::Attentive: return "attentive";
  }
  return "?";
}

bool reformulator_from_name(const std::string& name, Reformulator* kind) {
  for (const Reformulator k : {Reformulator::None, Reformulator::Linear, Reformulator::Attentive})
    if (name == reformulator_name(k)) {
      *kind = k;
      return true;
    }
  return false;
}

bool is_fact_index_kind(const std::string& kind) {
  return kind == "auto" || kind == "table" || kind == "brute" || kind == "kdtree" || kind == "exact" || kind == "hnsw";
}

const char* fact_index_kinds() { return "auto, table, brute, kdtree, exact, hnsw"; }

void check_fact_index_kind(const std::string& kind) {
  if (!is_fact_index_kind(kind))
    throw std::invalid_argument("unknown fact index '" + kind + "' (expected " + fact_index_kinds() + ")");
}

}  // namespace ntp
