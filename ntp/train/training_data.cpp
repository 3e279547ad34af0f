// ntp/train/training_data.cpp: reading what training needs, from files or from
// memory, and a fresh model over it (see ntp.h).
#include "ntp/train/training_data.h"
#include "ntp/model/rule_attention.h"

#include <sstream>
#include <stdexcept>

namespace ntp {

TrainingData read_training_data(const std::string& train, const std::string& templates, const std::string& dev,
                                const std::string& test) {
  TrainingData d;
  for (const Atom& f : read_facts(train, d.kb, NewSymbols::Allow)) d.kb.add_fact(f);
  // Dev and test symbols get embeddings too (before the templates, which may name them).
  if (!dev.empty() && is_labelled_tsv(dev)) {
    d.dev_labelled = read_labelled_tsv(dev, d.kb, NewSymbols::Allow);
    for (const LabelledAtom& l : d.dev_labelled)
      if (l.label > 0) d.dev.push_back(l.atom);
  } else if (!dev.empty()) {
    d.dev = read_facts(dev, d.kb, NewSymbols::Allow);
  }
  if (!test.empty()) d.test = read_true_atoms(test, d.kb, NewSymbols::Allow);
  if (!templates.empty()) d.kb.templates = read_templates(templates, d.kb);
  return d;
}

TrainingData training_data_from_text(const std::string& facts_nl, const std::string& templates_nlt) {
  TrainingData d;
  std::istringstream facts(facts_nl);
  for (const Atom& f : read_facts_nl(facts, "facts", d.kb, NewSymbols::Allow)) d.kb.add_fact(f);
  if (!templates_nlt.empty()) {
    std::istringstream templates(templates_nlt);
    d.kb.templates = read_templates_nlt(templates, "templates", d.kb);
  }
  return d;
}

Model new_model(TrainingData data, const ModelOptions& o) {
  const ProverConfig& p = o.prover;
  if (p.depth < 0 || p.depth > ProverConfig::kMaxDepth)
    throw std::invalid_argument("proof depth must be in 0.." + std::to_string(ProverConfig::kMaxDepth) + " (the search "
                                "grows exponentially with depth), got " + std::to_string(p.depth));
  if (p.k_facts < 0 || p.k_rules < 0)
    throw std::invalid_argument("k and k-rules must be >= 0, got " + std::to_string(p.k_facts) + " and " +
                                std::to_string(p.k_rules));
  check_fact_index_kind(p.index);
  if (p.complex && o.dim % 2 != 0) throw std::invalid_argument("ComplEx needs an even dimension, got " + std::to_string(o.dim));
  Model m = make_model(std::move(data.kb), o.dim, p, o.seed);
  if (o.attention) add_rule_attention(m, o.seed);
  m.filter_facts = std::move(data.dev);
  m.filter_facts.insert(m.filter_facts.end(), data.test.begin(), data.test.end());
  return m;
}

}  // namespace ntp
