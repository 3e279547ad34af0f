// ntp/kb/parse.h: readers for the KB file formats.
//
//   .nl   NTP facts, one per line: `locatedIn(palau, micronesia).`; `%` starts a comment.
//   .nlt  NTP rule templates: `3  #1(X, Y) :- #2(X, Z), #2(Z, Y).`, possibly over
//         several lines, ended by `.`; `#k` are learnable predicate slots.
//   .pl   gntp clauses: `p(X, Y) :- q(Y, X) <20>`; predicate names unknown to the
//         KB are learnable slots (same name in one clause = one slot), known ones
//         are fixed; `<N>` is the copy count (1 when absent). One clause per line.
//   .tsv  `subject<TAB>predicate<TAB>object`, and with a 4th column `1`/`-1`
//         for WN11's labelled dev/test files.
//   lists one name per line (Countries' regions.txt, test.txt).
//
// Variables start with an upper-case letter (or `_`); constants and predicate
// names with anything else. Files are UTF-8 text: a NUL, another control
// character than tab, CR or LF, or a malformed UTF-8 byte is an error, not
// part of a name. CRLF line ends and a missing final newline are fine. Sizes
// are bounded by ntp/limits.h (64 arguments per atom, 64 body atoms per rule). Bad input throws ParseError naming the file, the
// line, the column where it helps, and what was expected. Nothing is added to
// the KB from a file that fails to parse.
#pragma once

#include "ntp/kb/kb.h"

#include <istream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ntp {

// Variables start with an upper-case ASCII letter or `_`: a constant so
// named cannot be written in a rule.
inline bool is_variable_name(const std::string& name) {
  return !name.empty() && ((name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_');
}

struct ParseError : std::runtime_error {
  ParseError(const std::string& file, int line, int column, const std::string& what);
  std::string file;
  int line = 0;    // 1-based; 0 when the error is about the whole file
  int column = 0;  // 1-based; 0 when unknown
};

// Whether reading may add new predicates/constants to the KB's vocabularies.
// Test files must use symbols the model knows: Refuse makes an unknown one an error.
enum class NewSymbols { Allow, Refuse };

struct LabelledAtom {
  Atom atom;
  int label = 0;  // +1 (true) or -1 (false)
};

// Ground facts from a .nl or .tsv file (chosen by extension; anything but
// `.tsv` is read as .nl). Returns them in file order, duplicates included;
// does not add them to kb.facts (the caller decides which split they are).
std::vector<Atom> read_facts(const std::string& path, KnowledgeBase& kb, NewSymbols policy);
std::vector<Atom> read_facts_nl(std::istream& in, const std::string& name, KnowledgeBase& kb, NewSymbols policy);
std::vector<Atom> read_facts_tsv(std::istream& in, const std::string& name, KnowledgeBase& kb, NewSymbols policy);

// WN11-style labelled triples: `s<TAB>p<TAB>o<TAB>1|-1`.
std::vector<LabelledAtom> read_labelled_tsv(const std::string& path, KnowledgeBase& kb, NewSymbols policy);
std::vector<LabelledAtom> read_labelled_tsv(std::istream& in, const std::string& name, KnowledgeBase& kb, NewSymbols policy);

// Whether the file's first non-empty line has four tab-separated fields
// (WN11's labelled triples) rather than facts.
bool is_labelled_tsv(const std::string& path);
// The true atoms of any fact file: a .nl or .tsv file's facts, or the
// positives of a labelled TSV (told apart by is_labelled_tsv).
std::vector<Atom> read_true_atoms(const std::string& path, KnowledgeBase& kb, NewSymbols policy);

// Rule templates from .nlt or .pl (chosen by extension). Fixed predicates and
// constants in rules must already be in the KB (read the facts first): a
// fixed predicate used with another arity than in kb.facts is an error.
// Returns them in file order; does not add them to kb.templates.
std::vector<Template> read_templates(const std::string& path, KnowledgeBase& kb);
std::vector<Template> read_templates_nlt(std::istream& in, const std::string& name, KnowledgeBase& kb);
std::vector<Template> read_templates_pl(std::istream& in, const std::string& name, KnowledgeBase& kb);

// One rule on one line of `file` (line `number`, for errors), in the .nlt
// syntax without the count: "p(X, Y) :- q(Y, X)", final `.` optional; `#k`
// are slots, every other predicate must be known. Column numbers count from
// the start of `line`, so a caller may blank out what precedes the rule.
Template parse_rule_line(const std::string& line, const std::string& file, int number, const KnowledgeBase& kb);

// The same for many lines against one KB: the arities of its predicates
// (from its facts) found once, not once a line. Keeps a reference to kb.
class RuleLineParser {
 public:
  explicit RuleLineParser(const KnowledgeBase& kb);
  Template parse(const std::string& line, const std::string& file, int number) const;

 private:
  const KnowledgeBase& kb_;
  std::unordered_map<int, std::size_t> arities_;  // predicate id -> arity of its first fact
};

// One name per non-empty line (surrounding blanks trimmed).
std::vector<std::string> read_names(const std::string& path);

// A single ground atom such as "locatedIn(palau, oceania)" (final `.` optional),
// with symbols that must already be known; for the command line.
Atom parse_atom(const std::string& text, const KnowledgeBase& kb);

// An atom that may hold variables, "locatedIn(palau, X)": a name that starts
// like a variable and is not a constant of the KB is one. `atom.args` holds
// -1 at a variable; `variables` the name at each argument ("" for a constant).
struct Query {
  Atom atom;
  std::vector<std::string> variables;
};
Query parse_query(const std::string& text, const KnowledgeBase& kb);
// The predicate name an atom's text starts with, whatever the KB knows ("" if
// the text does not start with an atom): "\"[XXX] borders [YYY]\"(a, b)" ->
// [XXX] borders [YYY].
std::string predicate_name(const std::string& text);

}  // namespace ntp
