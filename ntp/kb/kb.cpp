// ntp/kb/kb.cpp: vocabularies, fact storage and printing of atoms and templates.
#include "ntp/kb/kb.h"

#include "ntp/kb/text.h"

namespace ntp {

int Vocabulary::intern(const std::string& name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  const int id = size();
  names_.push_back(name);
  ids_.emplace(name, id);
  return id;
}

int Vocabulary::find(const std::string& name) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? -1 : it->second;
}

// boost::hash_combine's mixing step over the predicate and the arguments.
std::size_t AtomHash::operator()(const Atom& a) const {
  std::size_t h = std::hash<int>()(a.predicate);
  for (int arg : a.args) h ^= std::hash<int>()(arg) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

std::size_t VectorHash::operator()(const std::vector<int>& v) const {
  std::size_t h = v.size();
  for (int x : v) h = h * 1000003u ^ static_cast<std::size_t>(x);
  return h;
}

bool KnowledgeBase::add_fact(const Atom& fact) {
  if (!fact_set_.insert(fact).second) return false;
  facts.push_back(fact);
  return true;
}

std::string to_string(const KnowledgeBase& kb, const Atom& atom) {
  return atom_text(kb.predicates.name(atom.predicate), atom.args.size(),
                   [&](std::size_t i) { return kb.constants.name(atom.args[i]); });
}

namespace {

std::string rule_atom_string(const KnowledgeBase& kb, const Template& t, const RuleAtom& a) {
  const PredicateRef& p = a.predicate;
  const std::string predicate = p.is_slot ? t.slot_names.at(static_cast<std::size_t>(p.id)) : kb.predicates.name(p.id);
  return atom_text(predicate, a.args.size(), [&](std::size_t i) {
    const Term& term = a.args[i];
    return term.is_variable ? t.variable_names.at(static_cast<std::size_t>(term.id)) : kb.constants.name(term.id);
  });
}

}  // namespace

std::string to_string(const KnowledgeBase& kb, const Template& t) {
  std::vector<std::string> body;
  for (const RuleAtom& a : t.body) body.push_back(rule_atom_string(kb, t, a));
  return rule_text(rule_atom_string(kb, t, t.head), body);
}

}  // namespace ntp
