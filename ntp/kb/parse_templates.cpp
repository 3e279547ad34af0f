// ntp/kb/parse_templates.cpp: rule templates from .nlt (`3  #1(X, Y) :- #2(Y, X).`,
// over any number of lines, ended by `.`) and gntp .pl (`p(X, Y) :- q(Y, X) <3>`,
// one per line, `<N>` optional).
//
// The two formats differ only in how a template names its learnable
// predicates: `#k` in .nlt, any name the KB does not know in .pl. Templates
// never add symbols to the KB: fixed predicates and constants must be known.
#include "ntp/kb/lexer.h"
#include "ntp/kb/limits.h"
#include "ntp/kb/parse.h"

#include <sstream>
#include <unordered_map>

namespace ntp {
namespace {

using lex::Cursor;
using lex::RawAtom;
using lex::Token;
using lex::TokenKind;

enum class SlotStyle { Hash, Unknown };  // .nlt: `#k` are slots; .pl: unknown names are

// Arity of each predicate in kb.facts (predicate id -> arity of its first fact).
std::unordered_map<int, std::size_t> fact_arities(const KnowledgeBase& kb) {
  std::unordered_map<int, std::size_t> arity;
  for (const Atom& f : kb.facts) arity.emplace(f.predicate, f.args.size());
  return arity;
}

std::string arguments(std::size_t n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); }

// Builds one template, numbering its variables and slots in order of first appearance.
class TemplateBuilder {
 public:
  TemplateBuilder(const KnowledgeBase& kb, const std::unordered_map<int, std::size_t>& arities, const Cursor& cursor,
                  SlotStyle style)
      : kb_(kb), arities_(arities), cursor_(cursor), style_(style) {}

  RuleAtom atom(const RawAtom& raw) {
    RuleAtom a;
    a.predicate = predicate(raw.predicate, raw.args.size());
    for (const Token& arg : raw.args) a.args.push_back(term(arg));
    return a;
  }

  Template finish(RuleAtom head, std::vector<RuleAtom> body, int copies, std::string source) {
    Template t;
    t.head = std::move(head);
    t.body = std::move(body);
    t.copies = copies;
    t.num_slots = static_cast<int>(slot_names_.size());
    t.num_variables = static_cast<int>(variable_names_.size());
    t.slot_names = std::move(slot_names_);
    t.variable_names = std::move(variable_names_);
    t.source = std::move(source);
    return t;
  }

 private:
  PredicateRef predicate(const Token& name, std::size_t arity) {
    PredicateRef ref;
    const int fixed = name.text[0] == '#' && !name.quoted ? -1 : kb_.predicates.find(name.text);
    if (fixed >= 0) {
      ref.is_slot = false;
      ref.id = fixed;
      auto it = arities_.find(fixed);
      if (it != arities_.end() && it->second != arity) {
        cursor_.fail_at(name, "predicate '" + name.text + "' has " + arguments(arity) + " here but " +
                                  arguments(it->second) + " in the facts (expected " + arguments(it->second) + ")");
      }
      return ref;
    }
    if (style_ == SlotStyle::Hash && (name.text[0] != '#' || name.quoted)) {
      cursor_.fail_at(name, "unknown predicate '" + name.text +
                                "' (expected a slot such as '#1' or a predicate already in the KB)");
    }
    auto found = slots_.emplace(name.text, static_cast<int>(slot_names_.size()));
    if (found.second) {
      slot_names_.push_back(name.text);
      slot_arity_.push_back(arity);
    }
    ref.is_slot = true;
    ref.id = found.first->second;
    const std::size_t first = slot_arity_[static_cast<std::size_t>(ref.id)];
    if (first != arity) {
      cursor_.fail_at(name, "slot '" + name.text + "' has " + arguments(arity) + " here but " + arguments(first) +
                                " earlier in the template (expected " + arguments(first) + ")");
    }
    return ref;
  }

  Term term(const Token& name) {
    Term t;
    if (lex::is_variable_name(name.text) && !name.quoted) {
      auto found = variables_.emplace(name.text, static_cast<int>(variable_names_.size()));
      if (found.second && variable_names_.size() == static_cast<std::size_t>(kMaxTemplateSymbols)) {
        cursor_.fail_at(name, "template with more than " + std::to_string(kMaxTemplateSymbols) +
                                  " variables (expected at most " + std::to_string(kMaxTemplateSymbols) + ")");
      }
      if (found.second) variable_names_.push_back(name.text);
      t.is_variable = true;
      t.id = found.first->second;
      return t;
    }
    t.is_variable = false;
    t.id = kb_.constants.find(name.text);
    if (t.id < 0) {
      cursor_.fail_at(name, "unknown constant '" + name.text +
                                "' (expected a variable, which starts with an upper-case letter or '_', "
                                "or a constant already in the KB)");
    }
    return t;
  }

  const KnowledgeBase& kb_;
  const std::unordered_map<int, std::size_t>& arities_;
  const Cursor& cursor_;
  SlotStyle style_;
  std::unordered_map<std::string, int> variables_, slots_;
  std::vector<std::string> variable_names_, slot_names_;
  std::vector<std::size_t> slot_arity_;
};

// "... is too large (expected at most 1000000)": a copy count over the limit.
std::string too_many_copies(const std::string& what) {
  return what + " is too large (expected at most " + std::to_string(kMaxTemplateCopies) + ")";
}

// `head :- body, ..., body` (the part both formats share).
Template parse_rule(Cursor& cursor, TemplateBuilder& builder, int copies, const std::string& source) {
  RuleAtom head = builder.atom(lex::parse_raw_atom(cursor));
  if (!cursor.accept(TokenKind::Implies)) {
    if (cursor.peek().kind == TokenKind::Dot || cursor.at_line_end()) {
      cursor.fail_here("rule without a body (expected ':-' and the body atoms)");
    }
    cursor.fail_unexpected("':-'");
  }
  std::vector<RuleAtom> body;
  do {
    if (body.size() == static_cast<std::size_t>(kMaxBodyAtoms)) {
      cursor.fail_here("rule with more than " + std::to_string(kMaxBodyAtoms) + " body atoms (expected at most " +
                       std::to_string(kMaxBodyAtoms) + ")");
    }
    body.push_back(builder.atom(lex::parse_raw_atom(cursor)));
  } while (cursor.accept(TokenKind::Comma));
  return builder.finish(std::move(head), std::move(body), copies, source);
}

}  // namespace

std::vector<Template> read_templates_nlt(std::istream& in, const std::string& name, KnowledgeBase& kb) {
  Cursor cursor(lex::tokenize(lex::read_all(in), name, 1, true), name);
  const auto arities = fact_arities(kb);
  std::vector<Template> templates;
  while (!cursor.at_end()) {
    const Token& count = cursor.peek();
    // The count starts a new template, so errors point at it, not at the end of the previous one.
    if (count.kind != TokenKind::Name || cursor.peek_after().kind == TokenKind::LParen) {
      cursor.fail_at(count, "missing template count, found " + lex::describe(count) +
                                " (expected a positive integer, the number of rules, before the template)");
    }
    const int copies = lex::parse_positive_int(count.text);
    if (copies < 0) {
      cursor.fail_at(count,
                     "template count '" + count.text + "' is not a positive integer (expected a count such as 3)");
    }
    if (copies > kMaxTemplateCopies) cursor.fail_at(count, too_many_copies("template count '" + count.text + "'"));
    cursor.next();
    TemplateBuilder builder(kb, arities, cursor, SlotStyle::Hash);
    templates.push_back(parse_rule(cursor, builder, copies, name + ":" + std::to_string(count.line)));
    if (cursor.peek().kind != TokenKind::Dot) {
      if (cursor.at_line_end()) cursor.fail_here("missing '.' at the end of the template (expected ',' or '.')");
      cursor.fail_unexpected("',' or '.' at the end of the template");
    }
    cursor.next();
  }
  if (templates.empty()) {
    throw ParseError(name, 0, 0, "no templates in the file (expected templates such as '3  #1(X, Y) :- #2(Y, X).')");
  }
  return templates;
}

Template parse_rule_line(const std::string& line, const std::string& file, int number, const KnowledgeBase& kb) {
  return RuleLineParser(kb).parse(line, file, number);
}

RuleLineParser::RuleLineParser(const KnowledgeBase& kb) : kb_(kb), arities_(fact_arities(kb)) {}

Template RuleLineParser::parse(const std::string& line, const std::string& file, int number) const {
  Cursor cursor(lex::tokenize(line, file, number, true), file);
  TemplateBuilder builder(kb_, arities_, cursor, SlotStyle::Hash);
  Template t = parse_rule(cursor, builder, 1, file + ":" + std::to_string(number));
  cursor.accept(TokenKind::Dot);
  if (!cursor.at_end()) cursor.fail_unexpected("',' or the end of the rule");
  return t;
}

std::vector<Template> read_templates_pl(std::istream& in, const std::string& name, KnowledgeBase& kb) {
  const auto arities = fact_arities(kb);
  std::vector<Template> templates;
  const std::string text = lex::read_all(in);
  lex::check_text(text, name, 1);  // each line is tokenized alone: a mark at a line's start is checked here
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    Cursor cursor(lex::tokenize(line, name, number, true), name);
    if (cursor.at_end()) continue;
    TemplateBuilder builder(kb, arities, cursor, SlotStyle::Unknown);
    Template t = parse_rule(cursor, builder, 1, name + ":" + std::to_string(number));
    cursor.accept(TokenKind::Dot);
    if (cursor.accept(TokenKind::Less)) {
      const Token& count = cursor.peek();
      if (count.kind == TokenKind::End) cursor.fail_unexpected("a positive integer copy count, as in '<20>'");
      const int copies = count.kind == TokenKind::Name ? lex::parse_positive_int(count.text) : -1;
      if (copies < 0) {
        cursor.fail_here("bad copy count " + lex::describe(count) + " (expected a positive integer, as in '<20>')");
      }
      if (copies > kMaxTemplateCopies) cursor.fail_here(too_many_copies("copy count '" + count.text + "'"));
      cursor.next();
      cursor.expect(TokenKind::Greater, "'>' closing the copy count");
      t.copies = copies;
    }
    if (!cursor.at_end()) cursor.fail_unexpected("',', a copy count such as '<20>', or the end of the line");
    templates.push_back(std::move(t));
  }
  if (templates.empty()) {
    throw ParseError(name, 0, 0, "no clauses in the file (expected clauses such as 'p(X, Y) :- q(Y, X) <20>')");
  }
  return templates;
}

}  // namespace ntp
