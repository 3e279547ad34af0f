// ntp/train/training_data.h: what training reads, and a fresh model over it.
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/kb/parse.h"
#include "ntp/model/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ntp {

// What training reads: the KB (facts and templates) and the true atoms of the
// dev and test files (their symbols get embeddings; they filter rankings).
struct TrainingData {
  KnowledgeBase kb;
  std::vector<Atom> dev, test;              // true atoms
  std::vector<LabelledAtom> dev_labelled;   // a labelled dev file's atoms, true and false (WN11)
};

// From files (.nl/.tsv facts, .nlt/.pl templates; "" for none). The dev and
// test files may be labelled TSV, whose positives count.
TrainingData read_training_data(const std::string& train, const std::string& templates = "",
                                const std::string& dev = "", const std::string& test = "");
// From text in memory, in the .nl and .nlt formats (errors name "facts" and "templates").
TrainingData training_data_from_text(const std::string& facts_nl, const std::string& templates_nlt = "");

// The recipe's prover (see TrainOptions): NTPλ, a goal scored by the mean of
// its proof score and its ComplEx score; k = 1, depth 1.
inline ProverConfig recipe_prover() {
  ProverConfig c;
  c.complex = true;
  c.combine = Combine::Mean;
  return c;
}

struct ModelOptions {
  int dim = 100;
  ProverConfig prover = recipe_prover();
  std::uint64_t seed = 0;
  bool attention = false;  // rule slots attend over the KB predicates (rule_attention.h)
};
// A model with fresh embeddings over the data's KB; the dev and test atoms
// become Model::filter_facts. Throws std::invalid_argument for bad sizes.
Model new_model(TrainingData data, const ModelOptions& options);

}  // namespace ntp
