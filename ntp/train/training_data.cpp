// ntp/train/training_data.cpp: reading what training needs, from files or from
// memory (see training_data.h).
#include "ntp/train/training_data.h"

#include "ntp/mine/rules_file.h"
#include "ntp/train/mined_templates.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ntp {

bool is_mined_rules_file(const std::string& path) {
  const std::string ext = ".tsv";
  if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return true;
  // `ntp mine --out rules.nl` keeps its header line: read it as mined rules, not as templates.
  std::ifstream in(path);
  std::string first;
  return in && std::getline(in, first) && first.rfind(kMinedRulesHeader, 0) == 0;
}

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
  if (templates == kMinedTemplatesKeyword) {
    d = with_mined_templates(std::move(d));
  } else if (is_mined_rules_file(templates)) {
    d.kb.templates = mined_templates(read_mined_rules(templates, d.kb), templates);
  } else if (!templates.empty()) {
    d.kb.templates = read_templates(templates, d.kb);
  }
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

}  // namespace ntp
