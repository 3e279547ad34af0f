// ntp/eval/evaluate_inputs.cpp: the atoms an evaluation needs beside its test
// file: the filter set of the ranking protocol and the Countries truth (see
// evaluate.h).
#include "ntp/eval/evaluate.h"

#include "ntp/kb/parse.h"

#include <algorithm>

namespace ntp {

std::unordered_set<Atom, AtomHash> filter_set(const Model& model, const std::vector<Atom>& test,
                                              const std::vector<std::string>& more_files) {
  std::unordered_set<Atom, AtomHash> known(model.kb.facts.begin(), model.kb.facts.end());
  known.insert(model.filter_facts.begin(), model.filter_facts.end());
  known.insert(test.begin(), test.end());
  // Reading refuses new symbols, so the model's vocabularies are only read
  // through this copy of the KB.
  KnowledgeBase kb = model.kb;
  for (const std::string& file : more_files)
    for (const Atom& a : read_true_atoms(file, kb, NewSymbols::Refuse)) known.insert(a);
  return known;
}

std::vector<std::string> new_predicate_names(const Model& model, const std::string& test,
                                             const std::vector<std::string>& filter) {
  KnowledgeBase scratch = model.kb;  // a copy: the model's vocabularies must keep matching its tables
  read_facts(test, scratch, NewSymbols::Allow);  // as ranking() and filter_set() read them
  for (const std::string& file : filter) read_true_atoms(file, scratch, NewSymbols::Allow);
  std::vector<std::string> out;
  for (int p = model.kb.predicates.size(); p < scratch.predicates.size(); ++p) out.push_back(scratch.predicates.name(p));
  return out;
}

std::vector<Atom> read_truth(const std::string& path, const Model& model) {
  // The truth file may name countries the model never saw; read it into a
  // copy of the KB so that the model's vocabularies keep matching its tables,
  // and keep the facts of known symbols only.
  KnowledgeBase scratch = model.kb;
  std::vector<Atom> truth;
  for (const Atom& a : read_facts(path, scratch, NewSymbols::Allow))
    if (a.predicate < model.kb.predicates.size() &&
        std::all_of(a.args.begin(), a.args.end(), [&](int c) { return c < model.kb.constants.size(); }))
      truth.push_back(a);
  return truth;
}

}  // namespace ntp
