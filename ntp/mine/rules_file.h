// ntp/mine/rules_file.h: mined rules as a file people read and programs load.
//
// One rule a line, tab-separated, highest confidence first within a head:
//   confidence  pca_confidence  head_coverage  support  body_pairs  rule
//   0.912       0.950           0.620          1234     1352        _hypernym(X, Y) :- _hypernym(Y, X)
// body_pairs is written `~1352` when it was estimated from a sample. Lines
// starting with `%` are comments. The rule is in the .nlt syntax with KB
// predicates, so it reads as a template too (parse.h, parse_rule_line).
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/mine/mined_rule.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace ntp {

// The first line write_mined_rules writes: it names a mined rules file
// whatever the file's extension.
inline constexpr const char* kMinedRulesHeader = "% confidence\tpca_confidence\thead_coverage\tsupport\tbody_pairs\trule";

void write_mined_rules(std::ostream& out, const KnowledgeBase& kb, const std::vector<MinedRule>& rules);
// The same to `path`, atomically (atomic_file.h).
void save_mined_rules(const std::string& path, const KnowledgeBase& kb, const std::vector<MinedRule>& rules);

// Throws ParseError naming the file, line and column of a malformed line: a
// missing or non-numeric field, a rule whose predicates or constants the KB
// does not know, or a rule that is neither a chain h(X, Y) :- a(X, Z), ...
// leading from X to Y through distinct variables nor a rule with a constant
// (mined_rule.h).
std::vector<MinedRule> read_mined_rules(std::istream& in, const std::string& name, const KnowledgeBase& kb);
std::vector<MinedRule> read_mined_rules(const std::string& path, const KnowledgeBase& kb);

// Each chain rule as a template of one copy whose every predicate, head and body,
// is a learnable slot starting at that predicate's embedding
// (Template::slot_starts): a prover that starts where the miner ended and
// may move each slot toward similar relations; rules with a constant are
// left out. `source` names the file.
std::vector<Template> mined_templates(const std::vector<MinedRule>& rules, const std::string& source);

// The steps (relation_graph.h) of a template that is a chain from its head's
// first argument to its second over fixed binary predicates; empty if it is not one.
std::vector<int> chain_steps(const Template& t);

}  // namespace ntp
