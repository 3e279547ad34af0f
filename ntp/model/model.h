// ntp/model/model.h: a trained (or training) NTP model: the KB it proves from, the
// embedding tables, and the rules instantiated from templates.
//
// Embedding tables, each (rows, dim):
//   predicates  rows [0, P) are the KB's predicates, rows [P, P + S) are the
//               learnable predicate slots of all instantiated rules, so that a
//               rule's `#2` and a fact's `locatedIn` are rows of one table and
//               can be compared with the kernel.
//   constants   one row per constant.
// A model file holds all of this (see save/load) so that `ntp eval`, `prove`
// and `rules` need nothing but the model and the files they evaluate.
#pragma once

#include "autodiff/tape.h"
#include "ntp/kb/kb.h"
#include "ntp/mine/mined_rule.h"
#include "ntp/model/config.h"

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ntp {

// One instantiated rule. Atoms use table rows: a RuleAtom's predicate has
// is_slot == false and id == a row of Model::predicates (KB predicate or slot).
struct Rule {
  RuleAtom head;
  std::vector<RuleAtom> body;
  int num_variables = 0;
  int template_id = 0;  // index into Model::templates
  // Conditional proving (conditional.h): no head kernel, and the body's slots
  // are rows conditioned on the goal's predicate.
  bool conditional = false;
};

// The reformulator of a conditional model and the rows it makes
// (conditional.h). Only `kind` and `weights` are stored in model files.
struct Conditioning {
  Reformulator kind = Reformulator::None;
  // Slot s's matrix is rows [(s - P) d, (s - P + 1) d): (d, d) linear, (d, P) attentive.
  ad::Parameter weights;
  struct Row {
    int slot = 0;    // the slot's predicate row
    int source = 0;  // the predicate row of the goal it is conditioned on
  };
  std::vector<Row> rows;  // predicate row P + S + i is rows[i]
  // [begin, end) indices into `rows`, one range per depth level: a level's
  // sources all lie before it, so the levels can be computed in order.
  std::vector<std::pair<int, int>> levels;
  std::unordered_map<std::uint64_t, int> row_of;  // (slot, source) -> predicate row
};

// Textual patterns among the KB's predicates (kb/pattern.h): the words their
// embeddings are computed from (model/mentions.h). Empty when no predicate is
// a pattern, and then absent from the model file.
struct Mentions {
  Vocabulary words;          // every word of every pattern, placeholders included
  ad::Parameter table;       // (words, dim)
  // Per KB predicate row, its words' ids in order; empty for a relation.
  std::vector<std::vector<int>> words_of;
};

struct Model {
  KnowledgeBase kb;            // symbols, the facts proofs use, the templates
  ProverConfig prover;
  int dim = 0;
  int num_kb_predicates = 0;   // P: rows of `predicates` that are KB symbols
  int num_rule_slots = 0;      // S: rows of `predicates` after them that are rule slots
  // (P + S + G, dim); the G conditioned rows of a conditional model
  // (conditional.h) are computed from the others and never stored.
  ad::Parameter predicates;
  ad::Parameter constants;     // (C, dim)
  std::vector<Rule> rules;
  // (S, P) logits when rule slots attend over the KB predicates
  // (rule_attention.h); 0 rows when slots have free embeddings.
  ad::Parameter rule_attention;
  Conditioning conditioning;  // kind None: no conditional rules
  // The rows of the KB predicates that are patterns are not free: each is
  // the mean of its words' rows, rewritten whenever they move.
  Mentions mentions;
  // True atoms seen at training time outside kb.facts (the --dev and --test
  // files), so that a filtered ranking can exclude them by default.
  std::vector<Atom> filter_facts;
  // Rules mined from the training facts (mine/miner.h) that count beside the
  // model's score when it ranks and answers: a constant's ranking score is
  // its score plus mined_rule_weight times the confidence of the best rule
  // predicting it (0 if none); an infinite weight puts the rules first, the
  // score ordering what they tie (eval/rule_ranking.h). Empty unless training
  // found on dev that they help (train/mined_rules_choice.h).
  std::vector<MinedRule> mined_rules;
  double mined_rule_weight = std::numeric_limits<double>::infinity();

  // Name of predicate-table row `row`: the KB name, "#<row - P>" for a slot,
  // or "#<slot>[<source>]" for a conditioned row.
  std::string predicate_row_name(int row) const;
};

// Builds the tables and instantiates kb.templates (copies times each, fresh
// slots per copy). Embeddings are uniform in [-1, 1] from `seed`. Throws
// std::invalid_argument, before allocating, for a dimension or table sizes
// beyond ntp/limits.h.
Model make_model(KnowledgeBase kb, int dim, ProverConfig prover, std::uint64_t seed);

// Writes the model to `path` atomically: to `path.tmp`, flushed to disk
// (fsync), then renamed into place and the directory synced, so that neither a
// crash nor a power loss leaves a half-written model. Format: magic "NTPMODEL",
// version, then the sections in the order of the struct.
void save_model(const Model& model, const std::string& path);
// The same bytes to a stream (checkpoints hold a model).
void write_model(const Model& model, std::ostream& out);
// Throws std::runtime_error naming the path if it is not a model file, has
// another version, or is truncated or damaged: every count is checked against
// the bytes left and ntp/limits.h before anything of that size is allocated,
// and every id and arity against the vocabularies and tables.
Model load_model(const std::string& path);
// The same from a stream; `name` is used in error messages.
Model load_model(std::istream& in, const std::string& name);

// "locatedIn(X, Y) :- #2(Y, X)"-style text of a rule with raw slot names.
std::string to_string(const Model& model, const Rule& rule);
// The same as the rule proves an atom of predicate row `goal_row`: a
// conditional rule's head takes the goal's predicate and its body the
// conditioned rows, e.g. "locatedIn(X, Y) :- #1[locatedIn](X, Z), ...".
std::string to_string(const Model& model, const Rule& rule, int goal_row);

}  // namespace ntp
