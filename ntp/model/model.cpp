// ntp/model/model.cpp: building a model from a KB, and its versioned file format.
#include "ntp/model/model.h"

#include "ntp/kb/atomic_file.h"
#include "ntp/model/binary_io.h"
#include "ntp/model/conditional.h"
#include "ntp/model/mentions.h"
#include "ntp/kb/limits.h"
#include "ntp/kb/text.h"
#include "autodiff/ops.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>


namespace ntp {

namespace {

constexpr char kMagic[8] = {'N', 'T', 'P', 'M', 'O', 'D', 'E', 'L'};
// 2: ProverConfig::complex; 3: ProverConfig::combine; 4: rule attention; 5: conditional rules;
// 6: mined templates (Template::slot_starts, mined_confidence); 7: mined rules beside the score;
// 8: mined rules with a constant; 9: textual patterns' word table, written
// only by models that have patterns (the others stay version 8, byte for byte)
constexpr std::uint32_t kVersion = 9;
constexpr std::uint32_t kVersionWithoutMentions = 8;
// Version 2 files still load: they are NTPλ models with the max rule;
// versions 2 and 3 are models without rule attention, 2 to 4 without
// conditional rules, 2 to 5 without mined templates.
constexpr std::uint32_t kOldestVersion = 2;

void init_uniform(ad::Parameter& p, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (ad::Index i = 0; i < p.value.size(); ++i) p.value.data()[i] = u(rng);
}

// Rewrites a template atom in terms of table rows: slot s of this copy is
// predicate row first_slot_row + s.
RuleAtom instantiate(const RuleAtom& atom, int first_slot_row) {
  RuleAtom out = atom;
  if (atom.predicate.is_slot) out.predicate.id = first_slot_row + atom.predicate.id;
  out.predicate.is_slot = false;
  return out;
}

void write_vocabulary(Writer& w, const Vocabulary& v) {
  w.i32(v.size());
  for (const std::string& n : v.names()) w.str(n);
}
void read_vocabulary(Reader& r, Vocabulary& v) {
  for (std::int32_t i = 0, n = r.count(1 << 28, 4); i < n; ++i) v.intern(r.str());
}

// Every id in a model file must point inside its vocabularies and tables,
// and every count agree with the others, so that a corrupt file is refused
// here rather than crashing a search or allocating a table.
void check_ids(Reader& r, const KnowledgeBase& kb, const std::vector<Atom>& filter_facts, int dim, int num_predicates,
               long long predicate_rows) {
  if (dim <= 0 || dim > kMaxDim) r.fail("corrupt model file (embedding dimension " + std::to_string(dim) + ")");
  if (num_predicates != kb.predicates.size()) r.fail("corrupt model file (predicate count)");
  // Each predicate of the facts and rules (and each slot of a template) must
  // have one arity, as the parsers ensure: the prover unifies atoms argument
  // by argument. (Filter facts are only looked up, never unified.)
  std::unordered_map<int, std::size_t> fact_arity;
  auto same_arity = [&](std::unordered_map<int, std::size_t>& arity, int predicate, std::size_t n) {
    if (n < 1) r.fail("corrupt model file (atom without arguments)");
    if (arity.emplace(predicate, n).first->second != n) r.fail("corrupt model file (predicate arities differ)");
  };
  auto check_atom = [&](const Atom& a) {
    if (a.predicate < 0 || a.predicate >= kb.predicates.size()) r.fail("corrupt model file (predicate id)");
    for (int c : a.args)
      if (c < 0 || c >= kb.constants.size()) r.fail("corrupt model file (constant id)");
  };
  for (const Atom& f : kb.facts) {
    check_atom(f);
    same_arity(fact_arity, f.predicate, f.args.size());
  }
  for (const Atom& f : filter_facts) check_atom(f);
  long long slots = 0, rules = 0;
  for (const Template& t : kb.templates) {
    if (t.copies < 1 || t.copies > kMaxTemplateCopies || t.num_slots < 0 || t.num_slots > kMaxTemplateSymbols ||
        t.num_variables < 0 || t.num_variables > kMaxTemplateSymbols || t.body.empty() ||
        t.slot_names.size() != static_cast<std::size_t>(t.num_slots) ||
        t.variable_names.size() != static_cast<std::size_t>(t.num_variables))
      r.fail("corrupt model file (template counts)");
    std::unordered_map<int, std::size_t> slot_arity;
    std::vector<const RuleAtom*> atoms{&t.head};
    for (const RuleAtom& b : t.body) atoms.push_back(&b);
    for (const RuleAtom* a : atoms) {
      const int limit = a->predicate.is_slot ? t.num_slots : kb.predicates.size();
      if (a->predicate.id < 0 || a->predicate.id >= limit) r.fail("corrupt model file (rule predicate id)");
      for (const Term& term : a->args)
        if (term.id < 0 || term.id >= (term.is_variable ? t.num_variables : kb.constants.size()))
          r.fail("corrupt model file (rule term id)");
      same_arity(a->predicate.is_slot ? slot_arity : fact_arity, a->predicate.id, a->args.size());
    }
    slots += static_cast<long long>(t.copies) * t.num_slots;
    rules += t.copies;
  }
  if (rules > kMaxTableRows) r.fail("corrupt model file (" + std::to_string(rules) + " rules)");
  // Checked before make_model builds the tables: a damaged copy count must not allocate them.
  if (num_predicates + slots != predicate_rows)
    r.fail("corrupt model file (" + std::to_string(slots) + " rule slots, but a table for " +
           std::to_string(predicate_rows - num_predicates) + ")");
}

// Refuses a model whose tables or rule list would not fit the file format
// (or an int), before anything is allocated.
void check_sizes(const KnowledgeBase& kb, int dim) {
  if (dim <= 0 || dim > kMaxDim)
    throw std::invalid_argument("embedding dimension must be in [1, " + std::to_string(kMaxDim) + "], got " +
                                std::to_string(dim));
  long long rows = kb.predicates.size(), rules = 0;
  for (const Template& t : kb.templates) {
    rows += static_cast<long long>(t.copies) * t.num_slots;
    rules += t.copies;
  }
  const std::string limit = " (expected at most " + std::to_string(kMaxTableRows) + ")";
  if (rows > kMaxTableRows)
    throw std::invalid_argument(std::to_string(rows) + " predicates and rule slots" + limit);
  if (rules > kMaxTableRows) throw std::invalid_argument(std::to_string(rules) + " rules" + limit);
  if (kb.constants.size() > kMaxTableRows)
    throw std::invalid_argument(std::to_string(kb.constants.size()) + " constants" + limit);
}

// The slots of mined templates start at their predicates' rows, so that
// each such rule starts as the rule it was mined as (every kernel 1).
void start_mined_slots(Model& m) {
  int first = m.num_kb_predicates;
  for (const Template& t : m.kb.templates)
    for (int copy = 0; copy < t.copies; ++copy, first += t.num_slots)
      for (std::size_t s = 0; s < t.slot_starts.size(); ++s)
        if (t.slot_starts[s] >= 0) m.predicates.value.row(first + static_cast<int>(s)) = m.predicates.value.row(t.slot_starts[s]);
}

}  // namespace

std::string Model::predicate_row_name(int row) const {
  if (row < num_kb_predicates) return kb.predicates.name(row);
  const int first_conditioned = num_kb_predicates + num_rule_slots;
  if (row < first_conditioned) return "#" + std::to_string(row - num_kb_predicates);
  const Conditioning::Row& c = conditioning.rows.at(static_cast<std::size_t>(row - first_conditioned));
  return predicate_row_name(c.slot) + "[" + predicate_row_name(c.source) + "]";
}

Model make_model(KnowledgeBase kb, int dim, ProverConfig prover, std::uint64_t seed) {
  check_sizes(kb, dim);
  Model m;
  m.kb = std::move(kb);
  m.prover = prover;
  m.dim = dim;
  m.num_kb_predicates = m.kb.predicates.size();
  int slots = 0;
  for (std::size_t t = 0; t < m.kb.templates.size(); ++t) {
    const Template& tpl = m.kb.templates[t];
    for (int copy = 0; copy < tpl.copies; ++copy) {
      const int first = m.num_kb_predicates + slots;
      Rule rule;
      rule.head = instantiate(tpl.head, first);
      for (const RuleAtom& a : tpl.body) rule.body.push_back(instantiate(a, first));
      rule.num_variables = tpl.num_variables;
      rule.template_id = static_cast<int>(t);
      m.rules.push_back(std::move(rule));
      slots += tpl.num_slots;
    }
  }
  m.num_rule_slots = slots;
  m.predicates = ad::Parameter("predicates", m.num_kb_predicates + slots, dim);
  m.constants = ad::Parameter("constants", m.kb.constants.size(), dim);
  std::mt19937_64 rng(seed);
  init_uniform(m.predicates, rng);
  init_uniform(m.constants, rng);
  start_mined_slots(m);
  add_mentions(m, rng);  // last: a KB without patterns draws the numbers it always drew
  return m;
}

void write_model(const Model& m, std::ostream& out) {
  Writer w(out);
  w.bytes(kMagic, sizeof kMagic);
  w.i32(has_mentions(m) ? kVersion : kVersionWithoutMentions);
  w.i32(m.prover.depth); w.i32(m.prover.k_facts); w.i32(m.prover.k_rules); w.str(m.prover.index);
  w.i32(m.prover.complex);
  w.i32(static_cast<std::int32_t>(m.prover.combine));
  w.i32(m.dim); w.i32(m.num_kb_predicates);
  write_vocabulary(w, m.kb.predicates);
  write_vocabulary(w, m.kb.constants);
  w.i32(static_cast<std::int32_t>(m.kb.facts.size()));
  for (const Atom& f : m.kb.facts) { w.i32(f.predicate); w.ints(f.args); }
  w.i32(static_cast<std::int32_t>(m.kb.templates.size()));
  for (const Template& t : m.kb.templates) {
    w.atom(t.head);
    w.i32(static_cast<std::int32_t>(t.body.size()));
    for (const RuleAtom& a : t.body) w.atom(a);
    w.i32(t.copies); w.i32(t.num_slots); w.i32(t.num_variables);
    w.i32(static_cast<std::int32_t>(t.variable_names.size()));
    for (const std::string& s : t.variable_names) w.str(s);
    w.i32(static_cast<std::int32_t>(t.slot_names.size()));
    for (const std::string& s : t.slot_names) w.str(s);
    w.str(t.source);
  }
  w.i32(static_cast<std::int32_t>(m.filter_facts.size()));
  for (const Atom& f : m.filter_facts) { w.i32(f.predicate); w.ints(f.args); }
  w.matrix(m.predicates.value.topRows(m.num_kb_predicates + m.num_rule_slots));  // conditioned rows are recomputed
  w.matrix(m.constants.value);
  w.matrix(m.rule_attention.value);  // (0, 0) without attention
  w.i32(static_cast<std::int32_t>(m.conditioning.kind));
  w.matrix(m.conditioning.weights.value);  // (0, 0) without conditional rules
  for (const Template& t : m.kb.templates) {  // version 6: where mined templates started, and k for open atoms
    w.i32(static_cast<std::int32_t>(t.slot_starts.size()));
    for (int start : t.slot_starts) w.i32(start);
    w.f64(t.mined_confidence);
  }
  w.i32(m.prover.k_open);
  w.f64(m.mined_rule_weight);  // version 7: the mined rules beside the score, and their weight
  w.i32(static_cast<std::int32_t>(m.mined_rules.size()));
  for (const MinedRule& r : m.mined_rules) {
    w.i32(r.head);
    w.ints(r.body);
    w.f64(static_cast<double>(r.support));
    w.f64(r.body_pairs);
    w.f64(r.pca_pairs);
    w.i32(r.estimated);
  }
  for (const MinedRule& r : m.mined_rules) {  // version 8: where a rule has a constant
    w.i32(r.constant_arg);
    w.i32(r.head_constant);
    w.i32(r.body_constant);
  }
  if (has_mentions(m)) w.matrix(m.mentions.table.value);  // version 9: the words of patterns
}

void save_model(const Model& m, const std::string& path) {
  write_atomically(path, [&](std::ostream& out) { write_model(m, out); });
}

Model load_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open model file");
  return load_model(in, path);
}

namespace {

// The magic number and the version, which says which sections follow.
std::int32_t read_version(Reader& r) {
  char magic[sizeof kMagic];
  r.bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) r.fail("not an ntp model file (bad magic number)");
  const std::int32_t version = r.i32();
  if (version < static_cast<std::int32_t>(kOldestVersion) || version > static_cast<std::int32_t>(kVersion))
    r.fail("model file version " + std::to_string(version) + ", this program reads versions " +
           std::to_string(kOldestVersion) + " to " + std::to_string(kVersion) + ": retrain with `ntp train`");
  return version;
}

ProverConfig read_prover(Reader& r, std::int32_t version) {
  ProverConfig prover;
  prover.k_open = 0;  // files before version 6 kept k facts for every atom
  prover.depth = r.i32(); prover.k_facts = r.i32(); prover.k_rules = r.i32(); prover.index = r.str();
  prover.complex = r.i32() != 0;
  const std::int32_t combine = version >= 3 ? r.i32() : 0;
  if (combine < 0 || combine > static_cast<std::int32_t>(Combine::Complex)) r.fail("corrupt model file (combine rule " + std::to_string(combine) + ")");
  prover.combine = static_cast<Combine>(combine);
  if (prover.depth < 0 || prover.depth > ProverConfig::kMaxDepth || prover.k_facts < 0 || prover.k_rules < 0 ||
      !is_fact_index_kind(prover.index))
    r.fail("corrupt model file (prover settings: depth " + std::to_string(prover.depth) + ", k " +
           std::to_string(prover.k_facts) + ", k-rules " + std::to_string(prover.k_rules) + ", index '" + prover.index + "')");
  return prover;
}

Template read_template(Reader& r) {
  Template t;
  t.head = r.atom();
  t.body.resize(static_cast<std::size_t>(r.count(kMaxBodyAtoms)));
  for (RuleAtom& a : t.body) a = r.atom();
  t.copies = r.i32(); t.num_slots = r.i32(); t.num_variables = r.i32();
  t.variable_names.resize(static_cast<std::size_t>(r.count(kMaxTemplateSymbols)));
  for (std::string& s : t.variable_names) s = r.str();
  t.slot_names.resize(static_cast<std::size_t>(r.count(kMaxTemplateSymbols)));
  for (std::string& s : t.slot_names) s = r.str();
  t.source = r.str();
  return t;
}

// The vocabularies, the facts and the templates.
KnowledgeBase read_kb(Reader& r) {
  KnowledgeBase kb;
  read_vocabulary(r, kb.predicates);
  read_vocabulary(r, kb.constants);
  for (std::int32_t i = 0, n = r.count(1 << 28, 8); i < n; ++i) {
    Atom f;
    f.predicate = r.i32();
    f.args = r.ints();
    kb.add_fact(f);
  }
  for (std::int32_t i = 0, n = r.count(1 << 28, 8); i < n; ++i) kb.templates.push_back(read_template(r));
  return kb;
}

// Puts the stored tables into a model rebuilt from its KB, checking shapes.
void put_tables(Reader& r, Model& m, ad::Matrix predicates, ad::Matrix constants, ad::Matrix attention) {
  if (predicates.rows() != m.predicates.value.rows() || predicates.cols() != m.dim ||
      constants.rows() != m.constants.value.rows() || constants.cols() != m.dim)
    r.fail("corrupt model file (table shapes do not match the vocabularies and templates)");
  m.predicates.value = std::move(predicates);
  m.constants.value = std::move(constants);
  if (attention.rows() > 0 || attention.cols() > 0) {
    // P + 1 columns: the KB predicates and "no relation"; P in files from before it.
    if (attention.rows() != m.num_rule_slots ||
        (attention.cols() != m.num_kb_predicates && attention.cols() != m.num_kb_predicates + 1))
      r.fail("corrupt model file (rule attention of shape " + ad::shape_of(attention) + ")");
    m.rule_attention = ad::Parameter("rule_attention", attention.rows(), attention.cols());
    m.rule_attention.value = std::move(attention);  // the slot rows stored above are its mix already
  }
}

// The reformulator's kind and weights (version 5 on), checked against the
// model's shapes, then the conditioned rows rebuilt from them.
void put_conditioning(Reader& r, Model& m, std::int32_t kind, ad::Matrix weights) {
  if (kind < 0 || kind > static_cast<std::int32_t>(Reformulator::Attentive))
    r.fail("corrupt model file (reformulator " + std::to_string(kind) + ")");
  if (kind == 0) {
    if (weights.size() > 0) r.fail("corrupt model file (reformulator weights without a reformulator)");
    return;
  }
  const Reformulator reformulator = static_cast<Reformulator>(kind);
  const ad::Index cols = reformulator == Reformulator::Linear ? m.dim : m.rule_attention.value.cols();
  if (weights.rows() != static_cast<ad::Index>(m.num_rule_slots) * m.dim || weights.cols() != cols)
    r.fail("corrupt model file (reformulator weights of shape " + ad::shape_of(weights) + ")");
  if (reformulator == Reformulator::Attentive && m.rule_attention.value.rows() == 0)
    r.fail("corrupt model file (an attentive reformulator without rule attention)");
  m.conditioning.kind = reformulator;
  m.conditioning.weights = ad::Parameter("reformulator", weights.rows(), weights.cols());
  m.conditioning.weights.value = std::move(weights);
  for (Rule& rule : m.rules) rule.conditional = rule.head.predicate.id >= m.num_kb_predicates;
  try {
    index_conditioned_rows(m);
  } catch (const std::invalid_argument& e) {
    r.fail(std::string("corrupt model file (") + e.what() + ")");
  }
}

// Version 6's last section: each template's slot starts (none, or one per
// slot: -1 or a KB predicate) and mined confidence, then ProverConfig::k_open.
void read_version6_tail(Reader& r, Model& m) {
  for (Template& t : m.kb.templates) {
    t.slot_starts.resize(static_cast<std::size_t>(r.count(kMaxTemplateSymbols, 4)));
    for (int& start : t.slot_starts) {
      start = r.i32();
      if (start < -1 || start >= m.kb.predicates.size()) r.fail("corrupt model file (slot start " + std::to_string(start) + ")");
    }
    if (!t.slot_starts.empty() && t.slot_starts.size() != static_cast<std::size_t>(t.num_slots))
      r.fail("corrupt model file (slot starts of a template)");
    t.mined_confidence = r.f64();
  }
  m.prover.k_open = r.i32();
  if (m.prover.k_open < 0) r.fail("corrupt model file (k for open atoms " + std::to_string(m.prover.k_open) + ")");
}

// Version 7's last section: the weight of the mined rules beside the model's
// score, then the rules, each a head and a path of steps over the KB's binary
// predicates; their ratios are recomputed from the counts.
void read_mined_rules_section(Reader& r, Model& m) {
  m.mined_rule_weight = r.f64();
  if (!(m.mined_rule_weight > 0)) r.fail("corrupt model file (mined rule weight " + format_number(m.mined_rule_weight) + ")");
  m.mined_rules.resize(static_cast<std::size_t>(r.count(1 << 24, 40)));
  const int predicates = m.kb.predicates.size();
  for (MinedRule& rule : m.mined_rules) {
    rule.head = r.i32();
    rule.body = r.ints();
    const double support = r.f64();
    rule.body_pairs = r.f64();
    rule.pca_pairs = r.f64();
    rule.estimated = r.i32() != 0;
    const bool steps_ok = std::all_of(rule.body.begin(), rule.body.end(), [&](int s) { return s >= 0 && s < 2 * predicates; });
    if (rule.head < 0 || rule.head >= predicates || rule.body.empty() || rule.body.size() > 3 || !steps_ok ||
        !(support >= 0 && support <= rule.body_pairs) || !(rule.pca_pairs >= 0))
      r.fail("corrupt model file (a mined rule)");
    rule.support = static_cast<long long>(support);
  }
}

// The mined rules' ratios, recomputed from their counts once read.
void set_mined_rule_measures(Model& m) {
  std::vector<long long> facts_of(static_cast<std::size_t>(m.kb.predicates.size()), 0);
  for (const Atom& f : m.kb.facts) ++facts_of[static_cast<std::size_t>(f.predicate)];
  for (MinedRule& rule : m.mined_rules) set_measures(rule, facts_of[static_cast<std::size_t>(rule.head)]);
}

// Version 8: each mined rule's constants (mined_rule.h), -1 where it has none.
void read_rule_constants(Reader& r, Model& m) {
  const int constants = m.kb.constants.size();
  for (MinedRule& rule : m.mined_rules) {
    rule.constant_arg = r.i32();
    rule.head_constant = r.i32();
    rule.body_constant = r.i32();
    const bool chain = rule.constant_arg == -1 && rule.head_constant == -1 && rule.body_constant == -1;
    const bool with_constant = (rule.constant_arg == 0 || rule.constant_arg == 1) && rule.head_constant >= 0 &&
                               rule.head_constant < constants && rule.body_constant >= -1 &&
                               rule.body_constant < constants && rule.body.size() == 1;
    if (!chain && !with_constant) r.fail("corrupt model file (a mined rule's constants)");
  }
}

// The word table of a model with patterns, checked against the words its
// predicates' names hold; the pattern rows are encoded from it again.
void put_word_table(Reader& r, Model& m, ad::Matrix words) {
  if (words.rows() != m.mentions.table.value.rows() || words.cols() != m.dim)
    r.fail("corrupt model file (the word table has shape " + ad::shape_of(words) + ", expected (" +
           std::to_string(m.mentions.table.value.rows()) + ", " + std::to_string(m.dim) + "))");
  if (!words.allFinite()) r.fail("corrupt model file (a word embedding is not finite)");
  m.mentions.table.value = std::move(words);
  encode_pattern_rows(m, pattern_rows(m));
}

}  // namespace

Model load_model(std::istream& in, const std::string& path) {
  Reader r(in, path);
  const std::int32_t version = read_version(r);
  const ProverConfig prover = read_prover(r, version);
  const std::int32_t dim = r.i32();
  const std::int32_t num_kb_predicates = r.i32();
  KnowledgeBase kb = read_kb(r);
  std::vector<Atom> filter_facts(static_cast<std::size_t>(r.count(1 << 28, 8)));
  for (Atom& f : filter_facts) { f.predicate = r.i32(); f.args = r.ints(); }
  ad::Matrix predicates = r.matrix();
  ad::Matrix constants = r.matrix();
  ad::Matrix attention = version >= 4 ? r.matrix() : ad::Matrix();
  const std::int32_t reformulator = version >= 5 ? r.i32() : 0;
  ad::Matrix reformulator_weights = version >= 5 ? r.matrix() : ad::Matrix();
  check_ids(r, kb, filter_facts, dim, num_kb_predicates, predicates.rows());
  // Rebuild rules and tables deterministically, then overwrite the values.
  Model m = make_model(std::move(kb), dim, prover, 0);
  if (m.num_kb_predicates != num_kb_predicates) r.fail("corrupt model file (table shapes do not match the vocabularies and templates)");
  m.filter_facts = std::move(filter_facts);
  put_tables(r, m, std::move(predicates), std::move(constants), std::move(attention));
  put_conditioning(r, m, reformulator, std::move(reformulator_weights));
  if (version >= 6) read_version6_tail(r, m);
  if (version >= 7) read_mined_rules_section(r, m);
  if (version >= 8) read_rule_constants(r, m);
  if (has_mentions(m) != (version >= 9))
    r.fail(version >= 9 ? "corrupt model file (a word table, but no predicate is a textual pattern)"
                        : "model file version " + std::to_string(version) +
                              " has textual patterns but no word table: retrain with `ntp train`");
  if (version >= 9) put_word_table(r, m, r.matrix());
  set_mined_rule_measures(m);
  return m;
}

std::string to_string(const Model& m, const Rule& rule) {
  return to_string(m, rule, rule.head.predicate.id);
}

std::string to_string(const Model& m, const Rule& rule, int goal_row) {
  const Template& tpl = m.kb.templates.at(static_cast<std::size_t>(rule.template_id));
  auto text = [&](const RuleAtom& a, int row) {
    return atom_text(m.predicate_row_name(row), a.args.size(), [&](std::size_t i) {
      const Term& t = a.args[i];
      return t.is_variable ? tpl.variable_names.at(static_cast<std::size_t>(t.id)) : m.kb.constants.name(t.id);
    });
  };
  std::vector<std::string> body;
  for (std::size_t i = 0; i < rule.body.size(); ++i) body.push_back(text(rule.body[i], body_row(m, rule, i, goal_row)));
  return rule_text(text(rule.head, rule.conditional ? goal_row : rule.head.predicate.id), body);
}

}  // namespace ntp
