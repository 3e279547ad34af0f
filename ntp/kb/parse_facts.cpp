// ntp/kb/parse_facts.cpp: ground facts from .nl (`p(a, b).`) and .tsv
// (`s<TAB>p<TAB>o`, optionally with a 1/-1 label), and parse_atom.
//
// Every reader resolves names through PendingSymbols and interns the new
// ones only after the whole input parsed, so a failure leaves the KB as it was.
#include "ntp/kb/lexer.h"
#include "ntp/kb/parse.h"
#include "ntp/kb/pattern.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace ntp {
namespace {

using lex::Cursor;
using lex::PendingSymbols;
using lex::RawAtom;
using lex::Token;
using lex::TokenKind;

std::string position(const Token& t) { return std::to_string(t.line) + ":" + std::to_string(t.column); }

std::string arguments(std::size_t n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); }

// The arity of each predicate that already has facts in the KB: a new file
// must agree with it, or its atoms would silently match nothing.
std::unordered_map<int, std::size_t> kb_arities(const KnowledgeBase& kb) {
  std::unordered_map<int, std::size_t> arity;
  for (const Atom& f : kb.facts) arity.emplace(f.predicate, f.args.size());
  return arity;
}

std::string kb_arity_message(const std::string& predicate, std::size_t here, std::size_t in_kb) {
  return "predicate '" + predicate + "' has " + arguments(here) + " here but " + arguments(in_kb) +
         " in the KB (expected " + arguments(in_kb) + ")";
}

// Refuses a malformed textual pattern (kb/pattern.h): `name`, a predicate
// whose first character stands at `column` of `line`.
void check_pattern(const std::string& file, int line, int column, const std::string& name) {
  if (!is_pattern(name)) return;
  std::size_t at = 0;
  const std::string problem = pattern_problem(name, at);
  if (!problem.empty()) throw ParseError(file, line, column + lex::code_points(name, 0, at), problem);
}

// The names of a .nl fact, resolved: no slots, no variables, and (under
// NewSymbols::Refuse) only symbols the KB already has.
Atom resolve_fact(const RawAtom& raw, PendingSymbols& predicates, PendingSymbols& constants, const Cursor& cursor) {
  Atom atom;
  const Token& p = raw.predicate;
  if (p.text[0] == '#' && !p.quoted) cursor.fail_at(p, "slot '" + p.text + "' in a fact (expected a predicate name)");
  check_pattern(cursor.file(), p.line, p.column + (p.quoted ? 1 : 0), p.text);  // a quoted name starts after its quote
  atom.predicate = predicates.lookup(p.text);
  if (atom.predicate < 0)
    cursor.fail_at(p, "unknown predicate '" + p.text + "' (expected a predicate already in the KB)");
  for (const Token& arg : raw.args) {
    if (lex::is_variable_name(arg.text) && !arg.quoted) {
      cursor.fail_at(arg, "variable '" + arg.text +
                              "' in a fact (expected a constant; variables start with an upper-case letter or '_')");
    }
    const int id = constants.lookup(arg.text);
    if (id < 0) cursor.fail_at(arg, "unknown constant '" + arg.text + "' (expected a constant already in the KB)");
    atom.args.push_back(id);
  }
  return atom;
}

// One tab-separated field and its 1-based column (in code points).
struct Field {
  std::string text;
  int column = 0;
};

// The fields of one TSV line, split at tabs and trimmed of blanks, with
// their columns; at most `limit` of them, since a line with more is an error
// that needs no others.
std::vector<Field> split_tsv(const std::string& line, std::size_t limit) {
  const char* blanks = " \r";
  std::vector<Field> fields;
  std::size_t start = 0;
  int column = 1;  // of line[start]; counted as the line is split, so a long line costs linear time
  while (fields.size() < limit) {
    const std::size_t tab = line.find('\t', start);
    const std::size_t end = tab == std::string::npos ? line.size() : tab;
    const std::size_t first = line.find_first_not_of(blanks, start);
    Field f;
    f.column = column;
    if (first < end) {
      f.text = line.substr(first, line.find_last_not_of(blanks, end - 1) - first + 1);
      f.column += lex::code_points(line, start, first);
    }
    fields.push_back(f);
    if (tab == std::string::npos) break;
    column += lex::code_points(line, start, tab + 1);
    start = tab + 1;
  }
  return fields;
}

// Calls visit(line_number, fields) for each non-blank line of a TSV text,
// after checking it has `names.size()` non-empty fields, or one fewer when
// the last column is `optional_last`.
template <typename Visit>
void for_each_tsv_row(const std::string& text, const std::string& file, const std::vector<std::string>& names,
                      Visit visit, bool optional_last = false) {
  lex::check_text(text, file, 1);
  std::string layout;
  for (std::size_t i = 0; i < names.size(); ++i)
    layout += (i == 0 ? "" : optional_last && i + 1 == names.size() ? "[<TAB>" : "<TAB>") + names[i];
  if (optional_last) layout += "]";
  const std::size_t least = names.size() - (optional_last ? 1 : 0);
  const std::string expected = optional_last ? std::to_string(least) + " or " + std::to_string(names.size())
                                             : std::to_string(names.size());
  std::istringstream in(text);
  in.ignore(static_cast<std::streamsize>(lex::bom_size(text)));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<Field> fields = split_tsv(line, names.size() + 1);
    if (fields.size() < least || fields.size() > names.size()) {
      const std::size_t found = static_cast<std::size_t>(std::count(line.begin(), line.end(), '\t')) + 1;
      const int column = fields.size() > names.size() ? fields[names.size()].column
                                                      : 1 + lex::code_points(line, 0, line.size());
      throw ParseError(file, number, column,
                       "found " + std::to_string(found) + " tab-separated columns (expected " + expected + ": " +
                           layout + ")");
    }
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].text.empty()) {
        throw ParseError(file, number, fields[i].column, "empty " + names[i] + " column (expected a name)");
      }
    }
    visit(number, fields);
  }
}

// GNTP's mention files add to each triple how often the text states it: a
// positive count, which does not change the fact.
void check_count(const std::string& file, int line, const Field& field) {
  const bool digits = field.text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || field.text.find_first_not_of('0') == std::string::npos)
    throw ParseError(file, line, field.column,
                     "count '" + field.text + "' (expected a positive whole number: how often the text states the "
                     "fact, as in GNTP's mention files; labelled test files go to --test)");
}

// Resolves a `s<TAB>p<TAB>o` row to the atom p(s, o).
Atom resolve_triple(const std::string& file, int line, const std::vector<Field>& f, PendingSymbols& predicates,
                    PendingSymbols& constants) {
  auto need = [&](int id, const Field& field, const char* kind) {
    if (id < 0) {
      throw ParseError(
          file, line, field.column,
          std::string("unknown ") + kind + " '" + field.text + "' (expected a " + kind + " already in the KB)");
    }
    return id;
  };
  Atom atom;
  const int s = need(constants.lookup(f[0].text), f[0], "constant");
  atom.predicate = need(predicates.lookup(f[1].text), f[1], "predicate");
  const int o = need(constants.lookup(f[2].text), f[2], "constant");
  atom.args = {s, o};
  return atom;
}

}  // namespace

std::string predicate_name(const std::string& text) {
  try {
    Cursor cursor(lex::tokenize(text, "query", 1, false), "query");
    return lex::parse_raw_atom(cursor).predicate.text;
  } catch (const ParseError&) {
    return "";
  }
}

std::vector<Atom> read_facts_nl(std::istream& in, const std::string& name, KnowledgeBase& kb, NewSymbols policy) {
  Cursor cursor(lex::tokenize(lex::read_all(in), name, 1, true), name);
  PendingSymbols predicates(kb.predicates, policy), constants(kb.constants, policy);
  std::unordered_map<int, Token> first_use;  // predicate id -> its first occurrence, for arity checks
  std::unordered_map<int, std::size_t> arity;
  const std::unordered_map<int, std::size_t> in_kb = kb_arities(kb);
  std::vector<Atom> facts;
  while (!cursor.at_end()) {
    const RawAtom raw = lex::parse_raw_atom(cursor);
    if (cursor.peek().kind != TokenKind::Dot) {
      if (cursor.at_line_end()) cursor.fail_here("missing '.' at the end of the fact (expected '.')");
      cursor.fail_unexpected("'.' at the end of the fact");
    }
    cursor.next();
    Atom atom = resolve_fact(raw, predicates, constants, cursor);
    const auto known = in_kb.find(atom.predicate);
    if (known != in_kb.end() && known->second != raw.args.size())
      cursor.fail_at(raw.predicate, kb_arity_message(raw.predicate.text, raw.args.size(), known->second));
    if (arity.emplace(atom.predicate, raw.args.size()).second) first_use.emplace(atom.predicate, raw.predicate);
    const std::size_t expected = arity.at(atom.predicate);
    if (expected != raw.args.size()) {
      cursor.fail_at(raw.predicate, "predicate '" + raw.predicate.text + "' has " + arguments(raw.args.size()) +
                                        " here but " + arguments(expected) + " at " +
                                        position(first_use.at(atom.predicate)) + " (expected " + arguments(expected) +
                                        ")");
    }
    facts.push_back(std::move(atom));
  }
  if (facts.empty())
    throw ParseError(name, 0, 0, "no facts in the file (expected at least one fact such as 'p(a, b).')");
  predicates.commit(kb.predicates);
  constants.commit(kb.constants);
  return facts;
}

std::vector<Atom> read_facts_tsv(std::istream& in, const std::string& name, KnowledgeBase& kb, NewSymbols policy) {
  PendingSymbols predicates(kb.predicates, policy), constants(kb.constants, policy);
  std::vector<Atom> facts;
  for_each_tsv_row(
      lex::read_all(in), name, {"subject", "predicate", "object", "count"},
      [&](int line, const std::vector<Field>& f) {
        check_pattern(name, line, f[1].column, f[1].text);
        if (f.size() == 4) check_count(name, line, f[3]);
        facts.push_back(resolve_triple(name, line, f, predicates, constants));
      },
      true);
  if (facts.empty()) {
    throw ParseError(name, 0, 0, "no triples in the file (expected lines such as 'a<TAB>p<TAB>b')");
  }
  predicates.commit(kb.predicates);
  constants.commit(kb.constants);
  return facts;
}

std::vector<LabelledAtom> read_labelled_tsv(std::istream& in, const std::string& name, KnowledgeBase& kb,
                                            NewSymbols policy) {
  PendingSymbols predicates(kb.predicates, policy), constants(kb.constants, policy);
  std::vector<LabelledAtom> out;
  for_each_tsv_row(lex::read_all(in), name, {"subject", "predicate", "object", "label"},
                   [&](int line, const std::vector<Field>& f) {
                     LabelledAtom la;
                     la.atom = resolve_triple(name, line, f, predicates, constants);
                     if (f[3].text == "1" || f[3].text == "+1") {
                       la.label = 1;
                     } else if (f[3].text == "-1") {
                       la.label = -1;
                     } else {
                       throw ParseError(name, line, f[3].column, "bad label '" + f[3].text + "' (expected 1 or -1)");
                     }
                     out.push_back(std::move(la));
                   });
  if (out.empty()) {
    throw ParseError(name, 0, 0, "no labelled triples in the file (expected lines such as 'a<TAB>p<TAB>b<TAB>1')");
  }
  predicates.commit(kb.predicates);
  constants.commit(kb.constants);
  return out;
}

namespace {

// parse_atom and parse_query: one atom of known symbols; variables (upper
// case or `_`, not a constant of the KB) only when `allow_variables`.
Query parse_known_atom(const std::string& text, const KnowledgeBase& kb, bool allow_variables) {
  const std::string name = allow_variables ? "query" : "atom";
  Cursor cursor(lex::tokenize(text, name, 1, false), name);
  const RawAtom raw = lex::parse_raw_atom(cursor);
  cursor.accept(TokenKind::Dot);
  if (!cursor.at_end()) cursor.fail_unexpected("the end of the atom");
  Query query;
  Atom& atom = query.atom;
  atom.predicate = kb.predicates.find(raw.predicate.text);
  if (atom.predicate < 0) {
    cursor.fail_at(raw.predicate, "unknown predicate '" + raw.predicate.text + "' (expected a predicate of the KB)");
  }
  for (const Token& arg : raw.args) {
    const int id = kb.constants.find(arg.text);
    if (id < 0 && lex::is_variable_name(arg.text) && !arg.quoted && allow_variables) {
      atom.args.push_back(-1);
      query.variables.push_back(arg.text);
      continue;
    }
    if (id < 0 && lex::is_variable_name(arg.text) && !arg.quoted) {
      cursor.fail_at(arg, "unknown constant '" + arg.text +
                              "'; variables are not allowed in a ground atom (expected a constant of the KB)");
    }
    if (id < 0) cursor.fail_at(arg, "unknown constant '" + arg.text + "' (expected a constant of the KB)");
    atom.args.push_back(id);
    query.variables.push_back("");
  }
  // One atom: look for the predicate's first fact rather than map every predicate.
  const auto known = std::find_if(kb.facts.begin(), kb.facts.end(),
                                  [&](const Atom& f) { return f.predicate == atom.predicate; });
  if (known != kb.facts.end() && known->args.size() != atom.args.size())
    cursor.fail_at(raw.predicate, kb_arity_message(raw.predicate.text, atom.args.size(), known->args.size()));
  return query;
}

}  // namespace

Atom parse_atom(const std::string& text, const KnowledgeBase& kb) { return parse_known_atom(text, kb, false).atom; }

Query parse_query(const std::string& text, const KnowledgeBase& kb) { return parse_known_atom(text, kb, true); }

}  // namespace ntp
