// ntp/kb/parse.cpp: ParseError, the readers that choose a format by file
// extension, and read_names. The formats themselves are in parse_facts.cpp
// and parse_templates.cpp.
#include "ntp/kb/parse.h"
#include "ntp/kb/lexer.h"

#include <sstream>

namespace ntp {
namespace {

std::string locate(const std::string& file, int line, int column) {
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line);
  if (line > 0 && column > 0) s += ":" + std::to_string(column);
  return s;
}

}  // namespace

ParseError::ParseError(const std::string& file_, int line_, int column_, const std::string& what)
    : std::runtime_error(locate(file_, line_, column_) + ": " + what), file(file_), line(line_), column(column_) {}

std::vector<Atom> read_facts(const std::string& path, KnowledgeBase& kb, NewSymbols policy) {
  std::istringstream in(lex::read_file(path));
  if (lex::has_extension(path, ".tsv")) return read_facts_tsv(in, path, kb, policy);
  return read_facts_nl(in, path, kb, policy);
}

std::vector<LabelledAtom> read_labelled_tsv(const std::string& path, KnowledgeBase& kb, NewSymbols policy) {
  std::istringstream in(lex::read_file(path));
  return read_labelled_tsv(in, path, kb, policy);
}

std::vector<Template> read_templates(const std::string& path, KnowledgeBase& kb) {
  std::istringstream in(lex::read_file(path));
  if (lex::has_extension(path, ".pl")) return read_templates_pl(in, path, kb);
  return read_templates_nlt(in, path, kb);
}

std::vector<std::string> read_names(const std::string& path) {
  const std::string text = lex::read_file(path);
  lex::check_text(text, path, 1);
  std::istringstream in(text);
  in.ignore(static_cast<std::streamsize>(lex::bom_size(text)));
  std::vector<std::string> names;
  std::string line;
  const char* blanks = " \t\r";
  while (std::getline(in, line)) {
    const std::size_t first = line.find_first_not_of(blanks);
    if (first == std::string::npos) continue;
    names.push_back(line.substr(first, line.find_last_not_of(blanks) - first + 1));
  }
  return names;
}

}  // namespace ntp
