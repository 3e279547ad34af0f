// ntp/eval/protocol.cpp: requests by name into the protocols of evaluate.h,
// and their figures into text and JSON.
#include "ntp/eval/protocol.h"

#include "ntp/eval/ranking.h"
#include "ntp/eval/rule_keys.h"
#include "ntp/eval/rule_ranking.h"
#include "ntp/mine/rules_file.h"
#include "ntp/model/complex.h"
#include "ntp/model/mentions.h"
#include "ntp/eval/sample.h"
#include "ntp/eval/shards.h"

#include "ntp/kb/parse.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/kb/text.h"
#include "ntp/kb/atomic_file.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <stdexcept>

namespace ntp {

namespace {

// "{"mrr":…,"hits@1":…,"hits@3":…,"hits@10":…}"
JsonObject ranking_json(const RankingMetrics& m) {
  JsonObject o;
  o.add("mrr", m.mrr).add("hits@1", m.hits1).add("hits@3", m.hits3).add("hits@10", m.hits10);
  return o;
}

std::string ranking_line(const RankingMetrics& m, const std::string& how) {
  return "MRR " + format_fixed(m.mrr, 4) + "  HITS@1 " + format_fixed(m.hits1, 4) + "  HITS@3 " +
         format_fixed(m.hits3, 4) + "  HITS@10 " + format_fixed(m.hits10, 4) + "  (" + how + ")";
}

// The aggregation of a request's rules: its own, or `protocol_default`,
// the protocol's (request.h: paths for countries, max for ranking). Chosen on dev: on
// Countries S3's carved dev splits (tools/countries_dev.sh, seeds 0-3) the
// chain rules alone rank at AUC-PR 70, 83.3, 83.1, 86.7 under paths against
// 70, 83.3, 79.8, 83.6 under max; on the dev facts of Nations, UMLS and
// Kinship, max ranks at MRR 0.750, 0.954, 0.678 against 0.715, 0.787, 0.558
// (docs/results/mined_rules.md).
RuleAggregation aggregation_of(const EvalRequest& q, RuleAggregation protocol_default) {
  return q.aggregation.empty() ? protocol_default : rule_aggregation_from_name(q.aggregation);
}

// Whether a request ranks by mined rules: a file's (--rules), or the
// model's own when the model's score is asked for.
bool ranks_by_rules(const Model& model, const EvalRequest& q) {
  return !q.rules.empty() || (!model.mined_rules.empty() && q.score == "model");
}

// How a request ranks by mined rules, for the report.
std::string mined_rules_note(const Model& model, const EvalRequest& q, std::size_t file_rules, RuleAggregation how) {
  const std::string aggregation = rule_aggregation_name(how);
  if (q.rules.empty()) {
    const double w = model.mined_rule_weight;
    return "ranking with the model's " + std::to_string(model.mined_rules.size()) + " mined rules " +
           (std::isinf(w) ? "first (" + aggregation + "), its score ordering what they tie"
                          : "beside its score (" + format_number(w) + " x the rules' " +
                                (how == RuleAggregation::Max ? std::string("best confidence") : aggregation) +
                                " added)") +
           ", as training chose on dev; --score proof, complex, max or mean ranks by the neural parts alone";
  }
  return "ranking with the " + std::to_string(file_rules) + " rules of " + q.rules +
         " applied symbolically over the model's facts (" + aggregation + " of their confidences), " +
         (q.rule_ties == "model" ? "their ties broken by the model's score" : "not the model");
}

void check_rule_ties(const EvalRequest& q) {
  if (q.rule_ties != "mean" && q.rule_ties != "model")
    throw std::invalid_argument("rule ties are mean or model, got '" + q.rule_ties + "'");
}

// The Countries atoms' keys by mined rules (rule_keys.h), as ranks_by_rules says.
std::vector<RankKey> countries_rule_keys(const Model& model, const std::vector<Atom>& atoms, const ScoreOptions& scoring,
                                         const EvalRequest& q, EvalReport& report) {
  check_rule_ties(q);
  const std::vector<MinedRule> rules = q.rules.empty() ? model.mined_rules : read_mined_rules(q.rules, model.kb);
  RuleEvidence evidence;
  evidence.aggregation = aggregation_of(q, RuleAggregation::Paths);
  report.note = mined_rules_note(model, q, rules.size(), evidence.aggregation);
  evidence.weight = q.rules.empty() ? model.mined_rule_weight : std::numeric_limits<double>::infinity();
  if (q.rules.empty() || q.rule_ties == "model") evidence.model_keys = rank_keys(model, atoms, scoring);
  return rule_evidence_keys(model.kb, rules, atoms, evidence);
}

void countries(const Model& model, const EvalRequest& q, const ScoreOptions& scoring, EvalReport& report) {
  const std::vector<Atom> truth = read_truth(q.truth, model);
  const CountriesAtoms pool = countries_atoms(model, read_names(q.test), read_names(q.regions), truth);
  const std::vector<RankKey> keys = ranks_by_rules(model, q) ? countries_rule_keys(model, pool.atoms, scoring, q, report)
                                                             : rank_keys(model, pool.atoms, scoring);
  const CountriesResult res = countries_result(keys, pool.labels);
  report.lines.push_back("AUC-PR " + format_number(100 * res.auc_pr) + " over " + std::to_string(res.scored) +
                         " atoms (" + std::to_string(res.positives) + " true)");
  report.json = JsonObject().add("auc_pr", res.auc_pr).text();
}

// Ranking scores with an exact fact index unless one is named: its ranks are
// those of exact search, and the bounded ranking equals one-by-one ranking
// with the index it is given.
ScoreOptions exact_unless_named(const Model& model, const EvalRequest& q, ScoreOptions scoring, EvalReport& report) {
  if (!q.index.empty()) return scoring;
  scoring = with_fact_index(model, scoring);
  if (scoring.facts->exact()) return scoring;
  report.lines.push_back("fact index: exact for ranking, not the model's " + scoring.facts->name() +
                         " (--index names another)");
  scoring.facts = make_fact_index(model, "exact");
  return scoring;
}

// One line per ranked side: the triple, the side, its ranks and how many
// corruptions were scored.
void write_ranks(const std::string& path, const Model& model, const std::vector<Atom>& test, const RankingResult& r) {
  write_atomically(path, [&](std::ostream& out) {
    out << "triple\tside\trank\toptimistic_rank\tscored\tcorruptions\n";
    for (const SideRank& s : r.ranks)
      out << to_string(model.kb, test[s.triple]) << '\t' << (s.side == 0 ? "subject" : "object") << '\t'
          << format_number(s.mean) << '\t' << format_number(s.optimistic) << '\t' << s.scored << '\t'
          << s.corruptions << '\n';
  });
}

// The test triples to rank: all of them, or the request's sample (file order).
std::vector<Atom> triples_to_rank(const std::vector<Atom>& atoms, const EvalRequest& q) {
  if (q.sample == 0) return atoms;
  std::vector<Atom> drawn;
  for (std::size_t i : sample_indices(atoms.size(), q.sample, q.sample_seed)) drawn.push_back(atoms[i]);
  return drawn;
}

// How far a sample's metrics may lie from the whole test set's: a line and
// a JSON object.
void report_sample(const EvalRequest& q, std::size_t population, const RankingResult& result, EvalReport& report,
                   JsonObject& json) {
  std::vector<double> ranks;
  std::vector<std::size_t> triple_of;
  for (const SideRank& s : result.ranks) ranks.push_back(s.mean), triple_of.push_back(s.triple);
  const RankingMetrics half = ranking_half_widths(ranks, triple_of, population);
  const std::string drawn = std::to_string(half.count) + " of " + std::to_string(population);
  report.lines.push_back("sample: " + drawn + " test triples (seed " + std::to_string(q.sample_seed) +
                         "); 95% half-widths, ties by mean rank: MRR ± " + format_fixed(half.mrr, 4) + ", HITS@1 ± " +
                         format_fixed(half.hits1, 4) + ", HITS@3 ± " + format_fixed(half.hits3, 4) + ", HITS@10 ± " +
                         format_fixed(half.hits10, 4) + " (normal approximation over triples)");
  json.add("sample", JsonObject()
                         .add("triples", half.count)
                         .add("of", static_cast<long long>(population))
                         .add_raw("seed", std::to_string(q.sample_seed))
                         .add("half_width", ranking_json(half)));
}

RankingResult rank_by_model(const Model& model, const std::vector<Atom>& ranked,
                            const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& scoring,
                            const EvalRequest& q) {
  RankingOptions how;
  how.one_by_one = q.one_by_one;
  how.progress = q.progress;
  return evaluate_ranking(model, ranked, known, scoring, how);
}

// Ranked by mined rules: a file's (`--rules`), alone or with the model's
// keys ordering their ties, or the model's own rules first.
RankingResult rank_by_mined_rules(const Model& model, const std::vector<Atom>& ranked,
                                  const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& scoring,
                                  const EvalRequest& q, EvalReport& report) {
  const RuleAggregation how = aggregation_of(q, RuleAggregation::Max);
  check_rule_ties(q);
  RankingOptions options;
  options.progress = q.progress;
  options.one_by_one = q.one_by_one;  // the model's own ranking, checked one by one
  if (q.rules.empty()) {
    const double w = model.mined_rule_weight;
    report.note = mined_rules_note(model, q, 0, how);
    if (std::isinf(w)) return rank_rules_first(model, model.mined_rules, ranked, known, scoring, how, options);
    return rank_with_rule_evidence(model, model.mined_rules, {w}, ranked, known, scoring, how, options).front();
  }
  const std::vector<MinedRule> rules = read_mined_rules(q.rules, model.kb);
  report.note = mined_rules_note(model, q, rules.size(), how);
  if (q.rule_ties == "model") return rank_rules_first(model, rules, ranked, known, scoring, how, options);
  RuleRankingOptions alone;
  alone.aggregation = how;
  alone.progress = q.progress;
  return rank_by_rules(model.kb, rules, ranked, known, alone);
}

// The ranking of `ranked` by `rank`, whole, or as q.shard's process of a
// group ranks its share and gathers the others' (shards.h).
RankingResult rank_shard(const std::vector<Atom>& ranked, const EvalRequest& q,
                         const std::function<RankingResult(const std::vector<Atom>&)>& rank) {
  check_share(q.shard);
  if (q.shard.count == 1) return rank(ranked);
  const std::vector<std::size_t> mine = share_items(ranked.size(), q.shard);
  std::vector<Atom> share;
  for (std::size_t t : mine) share.push_back(ranked[t]);
  std::vector<SideRank> sides = rank(share).ranks;
  for (SideRank& s : sides) s.triple = mine[s.triple];
  return gather_shards(q.shard, std::move(sides));
}

void ranking(const Model& model, const EvalRequest& q, const ScoreOptions& given, EvalReport& report) {
  KnowledgeBase kb = model.kb;  // read through a copy: refusing new symbols, so never changed
  const std::vector<Atom> atoms = read_facts(q.test, kb, NewSymbols::Refuse);
  const std::unordered_set<Atom, AtomHash> known = filter_set(model, atoms, q.filter);  // every triple, sampled or not
  const std::vector<Atom> ranked = triples_to_rank(atoms, q);
  const ScoreOptions scoring = exact_unless_named(model, q, given, report);
  const bool by_rules = ranks_by_rules(model, q);
  const RankingResult result = rank_shard(ranked, q, [&](const std::vector<Atom>& share) {
    return by_rules ? rank_by_mined_rules(model, share, known, scoring, q, report)
                    : rank_by_model(model, share, known, scoring, q);
  });
  if (!q.ranks.empty() && q.shard.index == 0) write_ranks(q.ranks, model, ranked, result);
  const RankingMetrics& m = result.mean_ties;
  report.lines.push_back(ranking_line(m, std::to_string(m.count) + " ranks, ties by mean rank"));
  report.lines.push_back(ranking_line(result.optimistic_ties, "ties optimistic, as the reference code"));
  if (!by_rules)
    report.lines.push_back("tied ranks: " + std::to_string(result.tied_ranks) + " of " + std::to_string(m.count) + " (" +
                           std::to_string(result.tied_on_score_alone) + " on the score alone" +
                           (scoring.tie_break ? ", before the tie-break by proof support" : "") + ")");
  else
    report.lines.push_back("tied ranks: " + std::to_string(result.tied_ranks) + " of " + std::to_string(m.count));
  long long scored = 0, corruptions = 0;
  for (const SideRank& s : result.ranks) scored += s.scored, corruptions += s.corruptions;
  report.lines.push_back("corruptions " + std::string(!by_rules ? "scored: " : "some rule predicts: ") +
                         std::to_string(scored) + " of " + std::to_string(corruptions) +
                         (by_rules ? "" : q.one_by_one ? " (one by one)" : " (the others cannot reach the true triple's score)"));
  JsonObject json = ranking_json(m);
  json.add("optimistic", ranking_json(result.optimistic_ties))
      .add("tied_ranks", result.tied_ranks)
      .add("tied_on_score", result.tied_on_score_alone)
      .add("scored", scored)
      .add("corruptions", corruptions);
  if (q.sample > 0) report_sample(q, atoms.size(), result, report, json);
  report.json = json.text();
}

// A labelled file's atoms and labels, apart.
void split_labels(const std::vector<LabelledAtom>& labelled, std::vector<Atom>& atoms, std::vector<int>& labels) {
  for (const LabelledAtom& l : labelled) {
    atoms.push_back(l.atom);
    labels.push_back(l.label);
  }
}

void classification(const Model& model, const EvalRequest& q, const ScoreOptions& scoring, EvalReport& report) {
  KnowledgeBase kb = model.kb;  // read through a copy: refusing new symbols, so never changed
  std::vector<Atom> dev, test;
  std::vector<int> dev_labels, test_labels;
  split_labels(read_labelled_tsv(q.dev, kb, NewSymbols::Refuse), dev, dev_labels);
  split_labels(read_labelled_tsv(q.test, kb, NewSymbols::Refuse), test, test_labels);
  const ClassificationResult c = evaluate_classification(model, dev, dev_labels, test, test_labels, scoring);
  report.lines.push_back("accuracy " + format_fixed(c.accuracy_per_relation, 4) + " (per-relation thresholds; dev " +
                         format_fixed(c.dev_accuracy_per_relation, 4) + "), " + format_fixed(c.accuracy_global, 4) +
                         " (global threshold; dev " + format_fixed(c.dev_accuracy_global, 4) + ")");
  report.json = JsonObject()
                    .add("accuracy", c.accuracy_per_relation)
                    .add("accuracy_global", c.accuracy_global)
                    .add("dev_accuracy", c.dev_accuracy_per_relation)
                    .text();
}

// "scoring with the proofs only, not the model's mean" when the source is
// not the model's own rule; "" when it is.
std::string score_source_note(ScoreSource source, const Model& model) {
  const std::optional<Combine> used = scoring_rule(model, source);
  const std::optional<Combine> own = scoring_rule(model, ScoreSource::Model);
  if (used == own) return "";
  const std::string what = !used                    ? "the ComplEx part only"
                           : *used == Combine::Proof ? "the proofs only"
                                                     : combine_name(*used) + std::string("(proof, ComplEx)");
  const std::string owns = !own                    ? "ComplEx score"
                           : *own == Combine::Proof ? "proof score"
                                                    : combine_name(*own);
  return "scoring with " + what + ", not the model's " + owns;
}

}  // namespace

ScoreSource score_source_from_name(const std::string& name, const Model& model) {
  if (name == "model") return ScoreSource::Model;
  if (name == "proof") return ScoreSource::ProofOnly;
  const std::map<std::string, ScoreSource> needs_complex = {
      {"complex", ScoreSource::ComplexOnly}, {"max", ScoreSource::MaxOfBoth}, {"mean", ScoreSource::MeanOfBoth}};
  const auto it = needs_complex.find(name);
  if (it == needs_complex.end()) throw std::invalid_argument("score is model, proof, complex, max or mean, got '" + name + "'");
  if (!model.prover.complex)
    throw std::invalid_argument("score '" + name + "' needs ComplEx: the model was trained without it");
  return it->second;
}

EvalReport evaluate(const Model& model, const EvalRequest& q, std::shared_ptr<FactIndex> facts) {
  if (q.tie_break != "support" && q.tie_break != "none")
    throw std::invalid_argument("tie-break is support or none, got '" + q.tie_break + "'");
  if (!q.index.empty()) check_fact_index_kind(q.index);
  if (!q.rules.empty() && q.protocol == "classification")
    throw std::invalid_argument("mined rules rank under the ranking and countries protocols, not classification");
  if (q.sample > 0 && q.protocol != "ranking")
    throw std::invalid_argument("a sample of the test set is for the ranking protocol only, not '" + q.protocol + "'");
  // A ranking test may state facts through phrases the model never saw: they
  // are ranked by a copy of the model that encodes them from its words
  // (mentions.h), searching a fact index of its own.
  if (q.protocol == "ranking" && has_mentions(model)) {
    const std::vector<std::string> unseen = unseen_patterns(model, new_predicate_names(model, q.test, q.filter));
    if (!unseen.empty()) return evaluate(with_patterns(model, unseen), q, nullptr);
  }
  ScoreOptions scoring;
  scoring.index = q.index;
  scoring.facts = q.index.empty() ? std::move(facts) : nullptr;
  scoring.source = score_source_from_name(q.score, model);
  scoring.tie_break = q.tie_break == "support";
  EvalReport report;
  report.note = score_source_note(scoring.source, model);
  if (q.protocol == "countries") countries(model, q, scoring, report);
  else if (q.protocol == "ranking") ranking(model, q, scoring, report);
  else if (q.protocol == "classification") classification(model, q, scoring, report);
  else throw std::invalid_argument("unknown protocol '" + q.protocol + "' (expected countries, ranking or classification)");
  return report;
}

}  // namespace ntp
