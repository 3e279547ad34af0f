// ntp/train/training_data.h: what training reads.
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/kb/parse.h"

#include <string>
#include <vector>

namespace ntp {

// What training reads: the KB (facts and templates) and the true atoms of the
// dev and test files (their symbols get embeddings; they filter rankings).
struct TrainingData {
  KnowledgeBase kb;
  std::vector<Atom> dev, test;              // true atoms
  std::vector<LabelledAtom> dev_labelled;   // a labelled dev file's atoms, true and false (WN11)
  // Templates mined by the run ("mined"): the rules an `or` step tries,
  // nearest heads first, when the model options leave --k-rules at 0 (all):
  // as many as the most rules of one head (mined_templates.h). 0 otherwise.
  int rules_per_goal = 0;
  std::string templates_note;  // how mined templates were chosen ("" for a file's)
};

// The rules an `or` step of a model over `data` tries: --k-rules as given
// (`k_rules`), or when 0 (all) data.rules_per_goal (0 too: all).
inline int rules_tried_per_goal(const TrainingData& data, int k_rules) {
  return k_rules != 0 ? k_rules : data.rules_per_goal;
}

// From files (.nl/.tsv facts; .nlt/.pl templates, or a .tsv of rules from
// `ntp mine` (mine/rules_file.h), each rule a template whose slots start at
// its predicates, or "mined": rules mined from the training facts, chosen
// with the dev facts (mined_templates.h); "" for none). The dev and test files may be labelled TSV,
// whose positives count.
TrainingData read_training_data(const std::string& train, const std::string& templates = "",
                                const std::string& dev = "", const std::string& test = "");
// Whether a templates path names mined rules (a .tsv file, or one that starts
// with the header `ntp mine` writes) rather than templates.
bool is_mined_rules_file(const std::string& path);

// From text in memory, in the .nl and .nlt formats (errors name "facts" and "templates").
TrainingData training_data_from_text(const std::string& facts_nl, const std::string& templates_nlt = "");

}  // namespace ntp
