// ntp/model/conditional.cpp: rule bodies computed from the goal (see conditional.h).
#include "ntp/model/conditional.h"

#include "autodiff/ops.h"
#include "ntp/model/rule_attention.h"

#include <numeric>
#include <set>
#include <stdexcept>

namespace ntp {

namespace {

std::uint64_t row_key(int slot, int source) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(slot)) << 32) | static_cast<std::uint32_t>(source);
}

std::vector<ad::Index> row_range(ad::Index begin, ad::Index count) {
  std::vector<ad::Index> rows(static_cast<std::size_t>(count));
  std::iota(rows.begin(), rows.end(), begin);
  return rows;
}

// The rows of the reformulator's weights that hold slot row `slot`'s matrix.
std::vector<ad::Index> weight_block(const Model& m, int slot) {
  return row_range(static_cast<ad::Index>(slot - m.num_kb_predicates) * m.dim, m.dim);
}

// Grows (or shrinks) the predicate table to P + S + G rows, keeping the
// first P + S.
void fit_table(Model& m) {
  const ad::Index kept = m.num_kb_predicates + m.num_rule_slots;
  const ad::Index rows = kept + static_cast<ad::Index>(m.conditioning.rows.size());
  if (m.predicates.value.rows() == rows) return;
  ad::Parameter grown(m.predicates.name, rows, m.dim);
  grown.value.topRows(kept) = m.predicates.value.topRows(kept);
  m.predicates = std::move(grown);
}

// (P + S, d) on the tape: the KB predicates and the slots (their mix, with
// rule attention).
ad::Var base_table(ad::Tape& t, Model& m) {
  if (has_rule_attention(m)) return attended_predicate_table(t, m);
  return ad::gather(t, m.predicates, row_range(0, m.num_kb_predicates + m.num_rule_slots));
}

// What attentive slots attend over, put on the tape once per table: the
// slots' own logits (S, P + 1) and the attendable rows (P + 1, d).
struct AttentionInputs {
  ad::Var logits, rows;
};

// (n, d) linear, or (n, P + 1) attentive: slot row `slot` conditioned on
// each of the n `sources`, rows of `table` (the predicate rows computed so
// far); for the attentive reformulator the weights over the attendable rows,
// which predicate_table mixes for all slots of a level in one product.
ad::Var conditioned(ad::Tape& t, Model& m, ad::Var table, const AttentionInputs& attention, int slot,
                    const std::vector<ad::Index>& sources) {
  const ad::Index n = static_cast<ad::Index>(sources.size());
  const ad::Var goals = ad::gather_rows(t, table, sources);                             // (n, d)
  const ad::Var weights = ad::gather(t, m.conditioning.weights, weight_block(m, slot));  // (d, d) or (d, P + 1)
  const ad::Var ones = t.constant(ad::Matrix::Ones(n, 1));                               // broadcasts a row to n
  if (m.conditioning.kind == Reformulator::Linear) {
    const ad::Var shift = ad::matmul(t, goals, weights);
    const ad::Var own = ad::gather_rows(t, table, {slot});                               // (1, d)
    return ad::add(t, ad::matmul(t, ones, own), shift);                                  // θ_s + g W_s
  }
  const ad::Var own = ad::gather_rows(t, attention.logits, {slot - m.num_kb_predicates});  // (1, P + 1): c a_s
  const ad::Var shift = ad::scale(t, ad::matmul(t, goals, weights), kAttentionLogitScale);  // c g A_s
  return ad::softmax_rows(t, ad::add(t, ad::matmul(t, ones, own), shift));  // softmax(c (a_s + g A_s))
}

// The rows one level's slots computed, concatenated in order: (n, d) each,
// or for the attentive reformulator their weights times the attendable
// rows E, one (N, P + 1) x (P + 1, d) product for the whole level.
ad::Var level_rows(ad::Tape& t, const Model& m, const AttentionInputs& attention, const std::vector<ad::Var>& slots) {
  const ad::Var stacked = slots.size() == 1 ? slots[0] : ad::concat_rows(t, slots);
  if (m.conditioning.kind == Reformulator::Linear) return stacked;
  return ad::matmul(t, stacked, attention.rows);  // softmax(c (a_s + g A_s)) E
}

}  // namespace

bool has_conditioning(const Model& m) { return m.conditioning.kind != Reformulator::None; }

void add_conditioning(Model& m, Reformulator kind, std::uint64_t seed) {
  if (kind == Reformulator::None) throw std::invalid_argument("add_conditioning: no reformulator given");
  if (has_conditioning(m)) throw std::invalid_argument("add_conditioning: the model's rules are conditional already");
  if (kind == Reformulator::Attentive && !has_rule_attention(m)) add_rule_attention(m, seed);
  m.conditioning.kind = kind;
  const ad::Index cols = kind == Reformulator::Linear ? m.dim : m.rule_attention.value.cols();  // P + 1
  m.conditioning.weights = ad::Parameter("reformulator", static_cast<ad::Index>(m.num_rule_slots) * m.dim, cols);
  for (Rule& r : m.rules) r.conditional = r.head.predicate.id >= m.num_kb_predicates;
  index_conditioned_rows(m);
}

// The most conditioned rows' entries (rows x d) a model may have: deep
// searches multiply them by the body slots at every level.
constexpr long long kMaxConditionedEntries = 1LL << 28;

// Level by level from the goals (KB predicates, `depth` rule applications
// left): the rows that the bodies of the rules applied at that level ask,
// conditioned rows made for every (slot, asking row) pair not made yet.
void index_conditioned_rows(Model& m) {
  Conditioning& c = m.conditioning;
  c.rows.clear();
  c.levels.clear();
  c.row_of.clear();
  const int first = m.num_kb_predicates + m.num_rule_slots;
  std::vector<int> asking(static_cast<std::size_t>(m.num_kb_predicates));
  std::iota(asking.begin(), asking.end(), 0);
  for (int left = m.prover.depth; left >= 1 && has_conditioning(m); --left) {
    long long body_slots = 0;
    for (const Rule& r : m.rules)
      for (const RuleAtom& b : r.body) body_slots += asks_conditioned(m, r, b);
    if ((static_cast<long long>(c.rows.size()) + body_slots * static_cast<long long>(asking.size())) * m.dim >
        kMaxConditionedEntries)
      throw std::invalid_argument("conditional rules at depth " + std::to_string(m.prover.depth) + " would need over " +
                                  std::to_string(kMaxConditionedEntries / m.dim) +
                                  " conditioned predicate rows: use a smaller depth or fewer rule templates");
    std::set<std::pair<int, int>> wanted;  // (slot, source), sorted: a slot's rows lie together
    std::set<int> asked;                   // the body atoms' rows, one level down
    for (int q : asking)
      for (const Rule& r : m.rules)
        for (const RuleAtom& b : r.body) {
          if (asks_conditioned(m, r, b)) wanted.emplace(b.predicate.id, q);
          else asked.insert(b.predicate.id);
        }
    const int begin = static_cast<int>(c.rows.size());
    for (const auto& [slot, source] : wanted) {
      const auto [it, added] = c.row_of.emplace(row_key(slot, source), first + static_cast<int>(c.rows.size()));
      if (added) c.rows.push_back({slot, source});
      asked.insert(it->second);
    }
    c.levels.emplace_back(begin, static_cast<int>(c.rows.size()));
    asking.clear();  // (not assign(): GCC 12 warns of a loop it cannot bound)
    for (int row : asked) asking.push_back(row);
  }
  fit_table(m);
  refresh_conditioned_rows(m);
}

void refresh_conditioned_rows(Model& m) {
  if (m.conditioning.rows.empty()) return;
  ad::Tape t;  // the tape's formula, so that search and gradients read the same rows
  const ad::Index g = static_cast<ad::Index>(m.conditioning.rows.size());
  m.predicates.value.bottomRows(g) = t.value(predicate_table(t, m)).bottomRows(g);
}

std::vector<int> reachable_conditioned_rows(const Model& m, const std::vector<int>& goal_rows) {
  std::set<int> asked_by_rules;  // what every rule's body asks, whatever the goal
  std::set<int> body_slots;      // the conditional rules' body slots
  for (const Rule& r : m.rules)
    for (const RuleAtom& b : r.body) {
      if (asks_conditioned(m, r, b)) body_slots.insert(b.predicate.id);
      else asked_by_rules.insert(b.predicate.id);
    }
  // Level by level as index_conditioned_rows goes, but from these goals
  // only; a row is looked up by its (slot, source) pair, as a proof asks it
  // (a row made at one level may be asked again at a deeper one).
  std::set<int> reached;
  std::set<int> asking(goal_rows.begin(), goal_rows.end());
  for (std::size_t level = 0; level < m.conditioning.levels.size(); ++level) {
    std::set<int> next = asked_by_rules;
    for (int source : asking)
      for (int slot : body_slots) {
        const int row = conditioned_row(m, slot, source);
        reached.insert(row);
        next.insert(row);
      }
    asking = std::move(next);
  }
  return {reached.begin(), reached.end()};
}

void write_conditioned_rows(Model& m, const ad::Tape& t, const PartialTable& table) {
  const int first = m.num_kb_predicates + m.num_rule_slots;
  const ad::Matrix& values = t.value(table.table);
  for (std::size_t r = static_cast<std::size_t>(first); r < table.position.size(); ++r)
    if (table.position[r] >= 0) m.predicates.value.row(static_cast<ad::Index>(r)) = values.row(table.position[r]);
}

bool asks_conditioned(const Model& m, const Rule& rule, const RuleAtom& atom) {
  return rule.conditional && atom.predicate.id >= m.num_kb_predicates;
}

std::vector<char> conditioned_rows_needed(const Model& m, const std::vector<int>& rows) {
  const int first = m.num_kb_predicates + m.num_rule_slots;
  std::vector<char> needed(m.conditioning.rows.size(), 0);
  for (int row : rows)
    if (row >= first) needed[static_cast<std::size_t>(row - first)] = 1;
  for (std::size_t i = needed.size(); i-- > 0;)  // sources lie before their rows: one backward pass
    if (needed[i] && m.conditioning.rows[i].source >= first)
      needed[static_cast<std::size_t>(m.conditioning.rows[i].source - first)] = 1;
  return needed;
}

int conditioned_row(const Model& m, int slot, int source) {
  const auto it = m.conditioning.row_of.find(row_key(slot, source));
  if (it == m.conditioning.row_of.end())
    throw std::logic_error("no conditioned row for slot row " + std::to_string(slot) + " and goal row " +
                           std::to_string(source) + " (deeper than the model's depth?)");
  return it->second;
}

int body_row(const Model& m, const Rule& rule, std::size_t i, int goal_row) {
  const int row = rule.body[i].predicate.id;
  if (!asks_conditioned(m, rule, rule.body[i])) return row;
  return conditioned_row(m, row, goal_row);
}

PartialTable predicate_table(ad::Tape& t, Model& m, const std::vector<int>& rows) {
  const int first = m.num_kb_predicates + m.num_rule_slots;
  PartialTable out{base_table(t, m), std::vector<ad::Index>(static_cast<std::size_t>(first) + m.conditioning.rows.size(), -1)};
  std::iota(out.position.begin(), out.position.begin() + first, ad::Index{0});
  if (!has_conditioning(m)) return out;
  const std::vector<char> wanted = conditioned_rows_needed(m, rows);
  AttentionInputs attention;
  if (m.conditioning.kind == Reformulator::Attentive) {
    attention.logits = scaled_attention_logits(t, m);
    attention.rows = attendable_rows(t, m, ad::gather_rows(t, out.table, row_range(0, m.num_kb_predicates)));
  }
  ad::Index next = first;
  for (const auto& [begin, end] : m.conditioning.levels) {
    std::vector<ad::Var> slots;
    for (int i = begin; i < end;) {  // one batch per slot
      const int slot = m.conditioning.rows[static_cast<std::size_t>(i)].slot;
      std::vector<ad::Index> sources;
      for (; i < end && m.conditioning.rows[static_cast<std::size_t>(i)].slot == slot; ++i) {
        if (!wanted[static_cast<std::size_t>(i)]) continue;
        sources.push_back(out.position[static_cast<std::size_t>(m.conditioning.rows[static_cast<std::size_t>(i)].source)]);
        out.position[static_cast<std::size_t>(first + i)] = next++;
      }
      if (!sources.empty()) slots.push_back(conditioned(t, m, out.table, attention, slot, sources));
    }
    if (!slots.empty()) out.table = ad::concat_rows(t, {out.table, level_rows(t, m, attention, slots)});
  }
  return out;
}

ad::Var predicate_table(ad::Tape& t, Model& m) {
  std::vector<int> all(m.conditioning.rows.size());
  std::iota(all.begin(), all.end(), m.num_kb_predicates + m.num_rule_slots);
  return predicate_table(t, m, all).table;
}

ad::Matrix conditioned_attention(const Model& m, int slot, int source) {
  const int p = m.num_kb_predicates;
  const ad::Matrix block = m.conditioning.weights.value.middleRows(static_cast<ad::Index>(slot - p) * m.dim, m.dim);
  const ad::Matrix logits =
      scaled_attention_logits(m).row(slot - p) + kAttentionLogitScale * m.predicates.value.row(source) * block;  // (1, P + 1)
  const ad::Matrix e = (logits.array() - logits.maxCoeff()).exp().matrix();
  return e / e.sum();
}

}  // namespace ntp
