// ntp/model/mentions.cpp: pattern rows from word rows, and the gradient back
// (mentions.h).
#include "ntp/model/mentions.h"

#include "autodiff/ops.h"
#include "ntp/kb/pattern.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ntp {

bool has_mentions(const Model& model) { return model.mentions.words.size() > 0; }

namespace {

// The word vocabulary and Model::mentions.words_of, and a zero word table.
void index_mentions(Model& m) {
  Mentions& men = m.mentions;
  men.words = Vocabulary();
  men.words_of.assign(static_cast<std::size_t>(m.num_kb_predicates), {});
  for (int p = 0; p < m.num_kb_predicates; ++p) {
    const std::string& name = m.kb.predicates.name(p);
    if (!is_pattern(name)) continue;
    for (const std::string& w : pattern_words(name)) men.words_of[static_cast<std::size_t>(p)].push_back(men.words.intern(w));
  }
  if (men.words.size() == 0) men.words_of.clear();
  men.table = ad::Parameter("words", men.words.size(), m.dim);
}

}  // namespace

void add_mentions(Model& m, std::mt19937_64& rng) {
  index_mentions(m);
  if (!has_mentions(m)) return;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (ad::Index i = 0; i < m.mentions.table.value.size(); ++i) m.mentions.table.value.data()[i] = u(rng);
  encode_pattern_rows(m, pattern_rows(m));
}

std::vector<int> pattern_rows(const Model& m) {
  std::vector<int> out;
  for (std::size_t p = 0; p < m.mentions.words_of.size(); ++p)
    if (!m.mentions.words_of[p].empty()) out.push_back(static_cast<int>(p));
  return out;
}

ad::Var encode_patterns(ad::Tape& t, Model& m, const std::vector<int>& rows) {
  std::vector<ad::Index> words, sizes;
  for (int p : rows) {
    const std::vector<int>& of = m.mentions.words_of.at(static_cast<std::size_t>(p));
    words.insert(words.end(), of.begin(), of.end());
    sizes.push_back(static_cast<ad::Index>(of.size()));
  }
  return ad::segment_mean(t, ad::gather(t, m.mentions.table, words), sizes);  // (rows, d)
}

void encode_pattern_rows(Model& m, const std::vector<int>& rows) {
  if (rows.empty()) return;
  ad::Tape t;
  const ad::Matrix& encoded = t.value(encode_patterns(t, m, rows));
  for (std::size_t i = 0; i < rows.size(); ++i) m.predicates.value.row(rows[i]) = encoded.row(static_cast<ad::Index>(i));
}

std::vector<int> patterns_reading(const Model& m, const std::vector<ad::Index>& words) {
  std::vector<char> moved(static_cast<std::size_t>(m.mentions.words.size()), 0);
  for (ad::Index w : words) moved[static_cast<std::size_t>(w)] = 1;
  std::vector<int> out;
  for (std::size_t p = 0; p < m.mentions.words_of.size(); ++p) {
    const std::vector<int>& of = m.mentions.words_of[p];
    if (std::any_of(of.begin(), of.end(), [&](int w) { return moved[static_cast<std::size_t>(w)] != 0; }))
      out.push_back(static_cast<int>(p));
  }
  return out;
}

std::vector<std::string> unseen_patterns(const Model& m, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names)
    if (m.kb.predicates.find(n) < 0 && is_pattern(n) && std::find(out.begin(), out.end(), n) == out.end())
      out.push_back(n);
  return out;
}

namespace {

// Throws std::invalid_argument unless `name` is a pattern `m` can encode.
void check_encodable(const Model& m, const std::string& name) {
  std::size_t at = 0;
  const std::string problem = pattern_problem(name, at);
  if (!problem.empty()) throw std::invalid_argument(problem);
  std::string unknown;
  for (const std::string& w : pattern_words(name))
    if (m.mentions.words.find(w) < 0) unknown += (unknown.empty() ? "'" : ", '") + w + "'";
  if (!unknown.empty())
    throw std::invalid_argument("pattern '" + name + "' has words no pattern in training had (" + unknown +
                                "): the model cannot encode it");
}

}  // namespace

Model with_patterns(const Model& m, const std::vector<std::string>& names) {
  if (!has_mentions(m)) throw std::invalid_argument("the model was trained without textual patterns: it knows no words");
  if (m.rule_attention.value.size() > 0 || m.conditioning.kind != Reformulator::None)
    throw std::invalid_argument("new patterns need a model without rule attention or conditional rules");
  KnowledgeBase kb = m.kb;
  for (const std::string& n : names) {
    check_encodable(m, n);
    kb.predicates.intern(n);
  }
  Model out = make_model(std::move(kb), m.dim, m.prover, 0);
  const int p = m.num_kb_predicates, grown = out.num_kb_predicates;
  out.predicates.value.topRows(p) = m.predicates.value.topRows(p);
  out.predicates.value.bottomRows(m.num_rule_slots) = m.predicates.value.middleRows(p, m.num_rule_slots);
  out.constants.value = m.constants.value;
  out.mentions.table.value = m.mentions.table.value;  // the same words, in the same order: the new patterns add none
  std::vector<int> added(static_cast<std::size_t>(grown - p));
  std::iota(added.begin(), added.end(), p);
  encode_pattern_rows(out, added);
  out.filter_facts = m.filter_facts;
  out.mined_rules = m.mined_rules;
  out.mined_rule_weight = m.mined_rule_weight;
  return out;
}

void push_pattern_gradients(Model& m) {
  if (!has_mentions(m)) return;
  ad::Parameter& table = m.predicates;
  std::vector<int> patterns;
  std::vector<ad::Index> kept;
  for (ad::Index r : table.touched) {
    const bool pattern = r < m.num_kb_predicates && !m.mentions.words_of[static_cast<std::size_t>(r)].empty();
    if (pattern) patterns.push_back(static_cast<int>(r));
    else kept.push_back(r);
  }
  if (patterns.empty()) return;
  ad::Matrix g(static_cast<ad::Index>(patterns.size()), m.dim);  // (patterns, d): what the proofs asked of each row
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    g.row(static_cast<ad::Index>(i)) = table.grad.row(patterns[i]);
    table.grad.row(patterns[i]).setZero();
    table.is_touched[static_cast<std::size_t>(patterns[i])] = 0;
  }
  table.touched = std::move(kept);
  ad::Tape t;  // d/dω Σ_p ⟨θ_p(ω), g_p⟩ = the proofs' gradient carried through the encoder
  const ad::Var inner = ad::sum(t, ad::mul(t, encode_patterns(t, m, patterns), t.constant(g)));
  t.backward(inner);
}

}  // namespace ntp
