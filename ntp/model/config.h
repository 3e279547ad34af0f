// ntp/model/config.h: the settings of proof search, plain values a model
// stores (ProverConfig) or a user tunes (FactIndexOptions), and the fact
// index's work counts (FactIndexStats). No embeddings here, so the public API
// can name them without the tape.
#pragma once

#include <string>

namespace ntp {

// How an NTPλ model joins its two scores of an atom, the proof score and the
// ComplEx score. Training is the same for all four (the sum of the two
// cross-entropies); only the final score differs.
//   Max    max(proof, ComplEx): NTP.md's rule.
//   Mean   their mean: the second opinion also orders atoms whose best score
//          is equal, as proofs over exact facts often are (docs/RESULTS.md).
//   Proof  the proof score alone: ComplEx only shapes the shared embeddings
//          during training, as an auxiliary task.
//   Complex  the ComplEx score alone: where proofs rank worse than ComplEx
//          (FB15k-237), the model ranks by ComplEx, and by the mined rules
//          it keeps first; its proofs still explain an answer (`ntp prove`).
enum class Combine { Max = 0, Mean = 1, Proof = 2, Complex = 3 };  // the values are stored in model files
const char* combine_name(Combine rule);  // "max", "mean", "proof", "complex"
// The rule with that name; false if there is none.
bool combine_from_name(const std::string& name, Combine* rule);

// Conditional proving (ntp/model/conditional.h): how a conditional rule's
// body predicates are computed from its goal's. None: plain rules.
enum class Reformulator { None = 0, Linear = 1, Attentive = 2 };  // the values are stored in model files
const char* reformulator_name(Reformulator kind);  // "none", "linear", "attentive"
// The kind with that name; false if there is none.
bool reformulator_from_name(const std::string& name, Reformulator* kind);

// How proofs are searched. Stored in the model so that evaluation proves the
// way training did, except for k_facts, which a run with dev facts widens to
// the width that ranks them best (train/width_choice.h); the CLI may
// override k and the index.
struct ProverConfig {
  // Proof search grows exponentially with depth; the references use 1 or 2.
  // Deeper searches are refused rather than left to exhaust memory.
  static constexpr int kMaxDepth = 8;
  int depth = 1;          // maximum rule applications on one proof path, 0..kMaxDepth
  int k_facts = 1;        // facts kept per `or` step; 0 = every fact (exhaustive)
  int k_rules = 0;        // rules kept per `or` step, nearest heads first; 0 = all rules
  // Facts kept per `or` step for an atom with an unbound argument, such as a
  // chain's first hop q(X, Z) with Z free, whose nearest fact is one of many
  // that bind Z: at least k_facts (0 = k_facts). Ignored when k_facts is 0
  // (every fact). 4 was chosen on dev (docs/RESULTS.md, "The defaults"); it
  // costs nothing where no rule has an open atom.
  int k_open = 4;
  std::string index = "auto";  // fact index (fact_index.h): auto|table|brute|kdtree|exact|hnsw
  bool complex = false;   // NTPλ: also score with ComplEx (complex.h)
  Combine combine = Combine::Max;  // NTPλ: how the proof and ComplEx scores join
};

// Which fact index engines exist (index/make_fact_index.h builds them); the
// options of `--index`.
bool is_fact_index_kind(const std::string& kind);
const char* fact_index_kinds();  // "auto, table, brute, kdtree, exact, hnsw"
// Throws std::invalid_argument naming the kinds unless `kind` is one.
void check_fact_index_kind(const std::string& kind);

// Engine settings a user may tune (ntp train --index-*). Defaults suit both
// small KBs and WN11 (docs/RESULTS.md measures them).
struct FactIndexOptions {
  // Steps between restructurings for the moved rows; 0 = the engine's
  // default. table: rebuild the distance tables (default every step). hnsw:
  // moved points are written into the graph every step, and relinked every
  // this many steps (default 10,000, about one WN11 epoch). brute needs
  // none; a k-d tree is rebuilt whenever a point moves.
  int update_every = 0;
  int neighbours = 4;        // ANN engines: constants looked up per goal constant (itself included), at first
  int max_neighbours = 16;   // ANN engines: widest look-up when the first cannot certify its answer
  // HNSW: the search beam per constant asked (ef = this x m for a look-up of
  // m constants). On FB15k-237, 4 costs an epoch 1.2-1.3x less fact retrieval
  // than a beam of 64 for every look-up, at recall@1 0.988 against 0.990
  // (docs/RESULTS.md, "WN18RR and FB15k-237").
  int beam_per_neighbour = 4;
};

// Work done by a fact index since it was made (or since reset_stats), for
// profiling training (TimeSplit). Seconds are summed over the threads that
// searched.
struct FactIndexStats {
  long long queries = 0;
  double search_seconds = 0;
  double maintenance_seconds = 0;  // applying moved rows: relinking, rebuilding tables
  long long rows_relinked = 0;     // ANN engines: points moved in the graph
  long long widened = 0;           // ANN engines: searches repeated with more neighbours
};

}  // namespace ntp
