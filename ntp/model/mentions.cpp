// ntp/model/mentions.cpp: pattern rows from word rows, and the gradient back
// (mentions.h).
#include "ntp/model/mentions.h"

#include "autodiff/ops.h"
#include "ntp/kb/pattern.h"

#include <algorithm>

namespace ntp {

bool has_mentions(const Model& model) { return model.mentions.words.size() > 0; }

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

void add_mentions(Model& m, std::mt19937_64& rng) {
  index_mentions(m);
  if (!has_mentions(m)) return;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (ad::Index i = 0; i < m.mentions.table.value.size(); ++i) m.mentions.table.value.data()[i] = u(rng);
  std::vector<int> patterns;
  for (int p = 0; p < m.num_kb_predicates; ++p)
    if (!m.mentions.words_of[static_cast<std::size_t>(p)].empty()) patterns.push_back(p);
  encode_pattern_rows(m, patterns);
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
