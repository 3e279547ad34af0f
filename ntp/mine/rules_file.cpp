// ntp/mine/rules_file.cpp: writing and reading mined rules (see rules_file.h).
#include "ntp/mine/rules_file.h"

#include "ntp/kb/atomic_file.h"
#include "ntp/kb/parse.h"
#include "ntp/kb/text.h"
#include "ntp/mine/relation_graph.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>

namespace ntp {

void write_mined_rules(std::ostream& out, const KnowledgeBase& kb, const std::vector<MinedRule>& rules) {
  out << kMinedRulesHeader << '\n';
  for (const MinedRule& r : rules) {
    out << format_fixed(r.confidence, 4) << '\t' << format_fixed(r.pca_confidence, 4) << '\t'
        << format_fixed(r.head_coverage, 4) << '\t' << r.support << '\t' << (r.estimated ? "~" : "")
        << format_fixed(r.body_pairs, 0) << '\t' << rule_text(kb, r) << '\n';
  }
}

void save_mined_rules(const std::string& path, const KnowledgeBase& kb, const std::vector<MinedRule>& rules) {
  write_atomically(path, [&](std::ostream& out) { write_mined_rules(out, kb, rules); });
}

std::vector<Template> mined_templates(const std::vector<MinedRule>& rules, const std::string& source) {
  std::vector<Template> templates;
  for (const MinedRule& r : rules) {
    if (has_constant(r)) continue;
    Template t;
    const int y = 1, middle = static_cast<int>(r.body.size()) - 1;
    t.variable_names = {"X", "Y"};
    for (int i = 1; i <= middle; ++i) t.variable_names.push_back(middle == 1 ? "Z" : "Z" + std::to_string(i));
    auto slot = [&t](int predicate, int a, int b) {
      const int id = static_cast<int>(t.slot_starts.size());
      t.slot_starts.push_back(predicate);
      t.slot_names.push_back("#" + std::to_string(id + 1));
      return RuleAtom{PredicateRef{true, id}, {Term{true, a}, Term{true, b}}};
    };
    t.head = slot(r.head, 0, y);
    for (std::size_t i = 0; i < r.body.size(); ++i) {
      const int from = i == 0 ? 0 : 1 + static_cast<int>(i), to = i + 1 == r.body.size() ? y : 2 + static_cast<int>(i);
      const int step = r.body[i];
      t.body.push_back(is_backward(step) ? slot(step_relation(step), to, from) : slot(step_relation(step), from, to));
    }
    t.num_slots = static_cast<int>(t.slot_starts.size());
    t.num_variables = static_cast<int>(t.variable_names.size());
    t.mined_confidence = r.confidence;
    t.source = source;
    templates.push_back(std::move(t));
  }
  return templates;
}

std::vector<int> chain_steps(const Template& t) {
  const RuleAtom& head = t.head;
  auto binary_variables = [](const RuleAtom& a) {
    return a.args.size() == 2 && a.args[0].is_variable && a.args[1].is_variable && a.args[0].id != a.args[1].id;
  };
  if (head.predicate.is_slot || !binary_variables(head)) return {};
  std::vector<int> steps;
  std::vector<bool> used(t.body.size(), false), visited(static_cast<std::size_t>(t.num_variables), false);
  int at = head.args[0].id;
  visited[static_cast<std::size_t>(at)] = true;
  for (std::size_t n = 0; n < t.body.size(); ++n) {
    int found = -1, next = -1;
    for (std::size_t i = 0; i < t.body.size() && found < 0; ++i) {
      const RuleAtom& a = t.body[i];
      if (used[i] || a.predicate.is_slot || !binary_variables(a)) continue;
      if (a.args[0].id == at) found = static_cast<int>(i), next = a.args[1].id;
      else if (a.args[1].id == at) found = static_cast<int>(i), next = a.args[0].id;
    }
    if (found < 0 || visited[static_cast<std::size_t>(next)]) return {};
    const RuleAtom& a = t.body[static_cast<std::size_t>(found)];
    steps.push_back(a.args[0].id == at ? forward_step(a.predicate.id) : backward_step(a.predicate.id));
    used[static_cast<std::size_t>(found)] = true;
    visited[static_cast<std::size_t>(next)] = true;
    at = next;
  }
  if (at != head.args[1].id) return {};
  return steps;
}

namespace {

// Field `index` of a tab-separated line: [begin, end) byte offsets.
struct Field {
  std::size_t begin = 0, end = 0;
};

double read_field(const std::string& line, const Field& f, bool allow_tilde, const std::string& name, int number,
                  const char* what) {
  std::string text = line.substr(f.begin, f.end - f.begin);
  if (allow_tilde && !text.empty() && text[0] == '~') text.erase(0, 1);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(v) || v < 0)
    throw ParseError(name, number, static_cast<int>(f.begin) + 1,
                     std::string("bad ") + what + " '" + text + "' (expected a number >= 0)");
  return v;
}

// A rule with a constant (mined_rule.h) into r: h(V, c) or h(c, V) with a
// KB predicate, then one binary atom of a KB predicate joining V to a
// constant d or to another variable. False for any other shape.
bool read_constant_rule(const Template& t, MinedRule& r) {
  const RuleAtom& h = t.head;
  if (h.predicate.is_slot || h.args.size() != 2 || t.body.size() != 1 || h.args[0].is_variable == h.args[1].is_variable)
    return false;
  const int constant_arg = h.args[0].is_variable ? 1 : 0;
  const int v = h.args[static_cast<std::size_t>(1 - constant_arg)].id;
  const RuleAtom& b = t.body.front();
  if (b.predicate.is_slot || b.args.size() != 2) return false;
  const bool forward = b.args[0].is_variable && b.args[0].id == v;
  const bool backward = b.args[1].is_variable && b.args[1].id == v;
  if (forward == backward) return false;  // V in neither place, or in both
  const Term& end = b.args[forward ? 1 : 0];
  r.constant_arg = constant_arg;
  r.head_constant = h.args[static_cast<std::size_t>(constant_arg)].id;
  r.body = {forward ? forward_step(b.predicate.id) : backward_step(b.predicate.id)};
  r.body_constant = end.is_variable ? -1 : end.id;
  return true;
}

MinedRule read_line(const std::string& line, const std::string& name, int number, const RuleLineParser& parser) {
  std::vector<Field> fields;
  for (std::size_t start = 0;;) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back({start, tab == std::string::npos ? line.size() : tab});
    if (tab == std::string::npos || fields.size() == 6) break;
    start = tab + 1;
  }
  if (fields.size() < 6)
    throw ParseError(name, number, 0,
                     "expected 6 tab-separated fields (confidence, pca_confidence, head_coverage, support, "
                     "body_pairs, rule), found " + std::to_string(fields.size()));
  fields[5].end = line.size();
  MinedRule r;
  r.confidence = read_field(line, fields[0], false, name, number, "confidence");
  r.pca_confidence = read_field(line, fields[1], false, name, number, "pca_confidence");
  r.head_coverage = read_field(line, fields[2], false, name, number, "head_coverage");
  r.support = static_cast<long long>(read_field(line, fields[3], false, name, number, "support"));
  r.estimated = line[fields[4].begin] == '~';
  r.body_pairs = read_field(line, fields[4], true, name, number, "body_pairs");
  // The rule alone, at its own columns: the fields before it blanked out.
  const std::string rule = std::string(fields[5].begin, ' ') + line.substr(fields[5].begin);
  const Template t = parser.parse(rule, name, number);
  r.head = t.head.predicate.id;
  r.body = chain_steps(t);
  if (r.body.empty() && !read_constant_rule(t, r))
    throw ParseError(name, number, static_cast<int>(fields[5].begin) + 1,
                     "not a mined rule over KB predicates (expected a path of binary atoms from X to Y, such as "
                     "h(X, Y) :- a(X, Z), b(Z, Y), or a rule with a constant, such as h(X, c) :- a(X, d))");
  return r;
}

}  // namespace

std::vector<MinedRule> read_mined_rules(std::istream& in, const std::string& name, const KnowledgeBase& kb) {
  std::vector<MinedRule> rules;
  const RuleLineParser parser(kb);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '%') continue;
    rules.push_back(read_line(line, name, number, parser));
  }
  return rules;
}

std::vector<MinedRule> read_mined_rules(const std::string& path, const KnowledgeBase& kb) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, 0, "cannot open the rules file");
  return read_mined_rules(in, path, kb);
}

}  // namespace ntp
