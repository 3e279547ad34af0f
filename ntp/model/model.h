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
#include "ntp/model/config.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace ntp {

// One instantiated rule. Atoms use table rows: a RuleAtom's predicate has
// is_slot == false and id == a row of Model::predicates (KB predicate or slot).
struct Rule {
  RuleAtom head;
  std::vector<RuleAtom> body;
  int num_variables = 0;
  int template_id = 0;  // index into Model::templates
};

struct Model {
  KnowledgeBase kb;            // symbols, the facts proofs use, the templates
  ProverConfig prover;
  int dim = 0;
  int num_kb_predicates = 0;   // P: rows of `predicates` that are KB symbols
  ad::Parameter predicates;    // (P + S, dim)
  ad::Parameter constants;     // (C, dim)
  std::vector<Rule> rules;
  // (S, P) logits when rule slots attend over the KB predicates
  // (rule_attention.h); 0 rows when slots have free embeddings.
  ad::Parameter rule_attention;
  // True atoms seen at training time outside kb.facts (the --dev and --test
  // files), so that a filtered ranking can exclude them by default.
  std::vector<Atom> filter_facts;

  // Name of predicate-table row `row`: the KB name, or "#<row - P>" for a slot.
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

}  // namespace ntp
