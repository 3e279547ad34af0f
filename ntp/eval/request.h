// ntp/eval/request.h: an evaluation asked for by names and files, and its
// report: plain data, for the API (Reasoner::evaluate) and `ntp eval`.
#pragma once

#include "ntp/kb/process_share.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ntp {

struct EvalRequest {
  std::string protocol;              // "countries", "ranking" or "classification"
  std::string test;                  // countries: test countries, one per line; ranking: facts; classification: labelled TSV
  std::string dev;                   // classification: labelled TSV to choose thresholds on
  std::string regions, truth;        // countries: the regions, one per line; facts giving each country's region
  std::vector<std::string> filter;   // ranking: more files of true facts to filter
  std::string score = "model";       // model, proof, complex, max or mean (score_source_from_name)
  std::string tie_break = "support";  // support or none (ScoreOptions::tie_break)
  std::string index;                 // overrides the model's fact index when not empty
                                     // (ranking: an exact index unless named)
  bool one_by_one = false;           // ranking: score every corruption (the reference the fast ranking must equal)
  std::string ranks;                 // ranking: write each side's rank to this TSV file when not empty
  // ranking: rank only `sample` of the test triples, drawn uniformly without
  // replacement with `sample_seed` (0 = all of them); every triple of the
  // file is still filtered out as true. The report adds each metric's 95%
  // half-width (ntp/eval/sample.h).
  std::size_t sample = 0;
  std::uint64_t sample_seed = 0;
  // ranking: rank with the mined rules of this file (mine/rules_file.h)
  // applied symbolically over the model's facts, instead of with the model
  // (eval/rule_ranking.h), their confidences aggregated by `aggregation`:
  // "max", "noisy-or" or "paths"; "" for the protocol's own (countries
  // compares atoms of many queries in one pool: paths, whose values are
  // comparable across them; ranking orders the constants of one side: max).
  // It applies to the model's own kept rules too.
  std::string rules;
  std::string aggregation;
  // With `rules`: "mean" (constants the rules tie take their mean rank) or
  // "model" (the model's score, as `score` says, orders them).
  std::string rule_ties = "mean";
  // ranking: called after each ranked side with (sides done, sides in all).
  std::function<void(std::size_t, std::size_t)> progress;
  // ranking: this process's share when a group ranks together (`mpirun -np R
  // ntp eval`): it ranks the test triples i with i % count == index, and every
  // process gets the figures and ranks of them all (eval/shards.h); only
  // process 0 writes the ranks file.
  ProcessShare shard;
};

struct EvalReport {
  // How the model was scored when not by its own rule, e.g. "scoring with
  // the proofs only, not the model's mean"; "" when by its own rule.
  std::string note;
  std::vector<std::string> lines;  // the figures, for reading
  std::string json;                // the figures as one JSON object
};

}  // namespace ntp
