// ntp/kb/parse_sniff.cpp: reading the true atoms of a file whose kind is told by
// its content (a labelled TSV has four columns), see parse.h.
#include "ntp/kb/parse.h"

#include <algorithm>
#include <fstream>

namespace ntp {

bool is_labelled_tsv(const std::string& path) {
  // The first non-empty line decides, reading at most 4 KiB of each: endless
  // input without a newline (a device, by mistake) must not hang here; the
  // reader that follows refuses it.
  std::ifstream probe(path);
  std::string first;
  char buffer[4096];
  while (probe && first.empty()) {
    probe.getline(buffer, sizeof buffer);
    first = buffer;
    if (probe.fail() && !probe.eof()) break;  // a line longer than the buffer: its start is enough
  }
  return std::count(first.begin(), first.end(), '\t') == 3;
}

std::vector<Atom> read_true_atoms(const std::string& path, KnowledgeBase& kb, NewSymbols policy) {
  if (!is_labelled_tsv(path)) return read_facts(path, kb, policy);
  std::vector<Atom> out;
  for (const LabelledAtom& l : read_labelled_tsv(path, kb, policy))
    if (l.label > 0) out.push_back(l.atom);
  return out;
}

}  // namespace ntp
