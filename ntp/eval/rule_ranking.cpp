// ntp/eval/rule_ranking.cpp: ranking by mined rules (see rule_ranking.h).
#include "ntp/eval/rule_ranking.h"

#include "ntp/mine/constant_rules.h"
#include "ntp/mine/relation_graph.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <unordered_map>

namespace ntp {

RuleAggregation rule_aggregation_from_name(const std::string& name) {
  if (name == "max") return RuleAggregation::Max;
  if (name == "noisy-or") return RuleAggregation::NoisyOr;
  if (name == "paths") return RuleAggregation::Paths;
  throw std::invalid_argument("rule aggregation is max, noisy-or or paths, got '" + name + "'");
}

std::string rule_aggregation_name(RuleAggregation how) {
  return how == RuleAggregation::Max ? "max" : how == RuleAggregation::NoisyOr ? "noisy-or" : "paths";
}

int compare_confidences(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

namespace {

// A rule as a side walks it: its body from X (object side open) and from Y
// (subject side open), computed once.
struct WalkedRule {
  double confidence = 0;
  std::vector<int> from_x, from_y;
  std::size_t index = 0;  // in the rules given
};

// Most confident first (the given order on ties).
void sort_by_confidence(std::vector<WalkedRule>& rules) {
  std::stable_sort(rules.begin(), rules.end(), [](const WalkedRule& a, const WalkedRule& b) { return a.confidence > b.confidence; });
}

// The rules as the sides apply them: the chain rules of each head predicate,
// most confident first, and the rules with a constant, indexed; of head
// `only_head` alone when it is not -1 (one side's rules).
struct AppliedRules {
  AppliedRules(int num_predicates, const std::vector<MinedRule>& given, int only_head = -1)
      : rules(given), by_head(static_cast<std::size_t>(num_predicates)), constants(given, num_predicates, only_head) {
    for (std::size_t i = 0; i < rules.size(); ++i)
      if (!has_constant(rules[i]) && (only_head < 0 || rules[i].head == only_head))
        by_head[static_cast<std::size_t>(rules[i].head)].push_back({rules[i].confidence, rules[i].body, reversed_path(rules[i].body), i});
    for (auto& list : by_head) sort_by_confidence(list);
  }
  const std::vector<MinedRule>& rules;
  std::vector<std::vector<WalkedRule>> by_head;
  ConstantRuleIndex constants;
};

// How many known atoms share a side's fixed part: (predicate, the other
// argument, which argument is open) -> count.
using SideCounts = std::unordered_map<std::uint64_t, int>;
std::uint64_t side_key(int predicate, int fixed, int open) {
  return (static_cast<std::uint64_t>(predicate) << 33) | (static_cast<std::uint64_t>(fixed) << 1) | static_cast<std::uint64_t>(open);
}
SideCounts count_sides(const std::unordered_set<Atom, AtomHash>& known) {
  SideCounts counts;
  for (const Atom& a : known)
    if (a.args.size() == 2) ++counts[side_key(a.predicate, a.args[1], 0)], ++counts[side_key(a.predicate, a.args[0], 1)];
  return counts;
}

// A constant's predictions: the confidences of the rules that reached it,
// highest first (max), or folded into one noisy-or score, of the
// confidences or of the confidences times the rules' path shares (paths).
struct Prediction {
  std::vector<double> confidences;
  double noisy_or = 0;
  double by_paths = 0;
  std::size_t first_rule = 0;  // the most confident rule reaching it (an index into the rules given)
  double first_confidence = 0;  // its confidence
};

// -1, 0 or 1 as a is below, equal to or above b.
int compare(const Prediction& a, const Prediction& b, RuleAggregation how) {
  if (how == RuleAggregation::NoisyOr) return a.noisy_or < b.noisy_or ? -1 : a.noisy_or > b.noisy_or ? 1 : 0;
  if (how == RuleAggregation::Paths) return a.by_paths < b.by_paths ? -1 : a.by_paths > b.by_paths ? 1 : 0;
  return compare_confidences(a.confidences, b.confidences);
}

// What one thread reuses between sides: the prediction of each constant reached.
struct SideScratch {
  std::vector<int> slot;  // (constants): index into `reached` + 1, 0 when not reached
  std::vector<int> reached;
  std::vector<Prediction> predictions;
};

// Adds one rule's confidence to the prediction of constant c, `share` of
// the rule's paths from the side's known constant ending at c.
void add_prediction(int c, double confidence, double share, std::size_t rule, RuleAggregation how, SideScratch& s) {
  int& at = s.slot[static_cast<std::size_t>(c)];
  if (at == 0) {
    s.reached.push_back(c);
    at = static_cast<int>(s.reached.size());
    if (s.predictions.size() < s.reached.size()) s.predictions.emplace_back();
    s.predictions[static_cast<std::size_t>(at - 1)] = Prediction{{}, 0, 0, rule, confidence};
  }
  Prediction& p = s.predictions[static_cast<std::size_t>(at - 1)];
  if (confidence > p.first_confidence) p.first_rule = rule, p.first_confidence = confidence;
  if (how == RuleAggregation::Max) p.confidences.push_back(confidence);
  p.noisy_or = 1 - (1 - p.noisy_or) * (1 - confidence);
  p.by_paths = 1 - (1 - p.by_paths) * (1 - confidence * share);
}

// The predictions of the rules of `head` at the open argument of a side
// whose other argument is `from`, each constant's confidences highest first.
void predict(const AppliedRules& applied, int head, int from, int open, RuleAggregation how, SideScratch& s,
             const RelationGraph& g, PathWalker& walker) {
  for (int c : s.reached) s.slot[static_cast<std::size_t>(c)] = 0;
  s.reached.clear();
  for (const WalkedRule& r : applied.by_head[static_cast<std::size_t>(head)]) {  // most confident first
    const std::vector<int>& ends = walker.walk(open == 1 ? r.from_x : r.from_y, from);
    for (std::size_t i = 0; i < ends.size(); ++i)
      add_prediction(ends[i], r.confidence, walker.path_counts()[i] / walker.total_paths(), r.index, how, s);
  }
  if (applied.constants.empty()) return;
  bool added = false;  // the rules with a constant come in no order of confidence
  applied.constants.for_each_applying(g, head, open, from, [&](std::size_t rule, int c) {
    add_prediction(c, applied.rules[rule].confidence, 1.0, rule, how, s);  // a test of one constant: one path
    added = true;
  });
  if (!added || how != RuleAggregation::Max) return;
  for (std::size_t i = 0; i < s.reached.size(); ++i) {
    std::vector<double>& list = s.predictions[i].confidences;
    std::sort(list.begin(), list.end(), std::greater<double>());
  }
}

// How many unpredicted, unfiltered constants other than the truth a model's
// scores put above it and level with it (the truth unpredicted too).
std::pair<long long, long long> unpredicted_against(const Atom& atom, int open, const std::vector<double>& scores,
                                                    const std::unordered_set<Atom, AtomHash>& known, const SideScratch& s) {
  const int truth = atom.args[static_cast<std::size_t>(open)];
  const double t = scores[static_cast<std::size_t>(truth)];
  long long above = 0, level = 0;
  Atom corrupted = atom;
  for (int c = 0; c < static_cast<int>(scores.size()); ++c) {
    if (c == truth || s.slot[static_cast<std::size_t>(c)] != 0) continue;
    corrupted.args[static_cast<std::size_t>(open)] = c;
    if (known.count(corrupted)) continue;
    above += scores[static_cast<std::size_t>(c)] > t, level += scores[static_cast<std::size_t>(c)] == t;
  }
  return {above, level};
}

// The rank of the true constant at the side's open argument; `scores` (C
// values, or empty) break the rules' ties.
SideRank rank_side(const KnowledgeBase& kb, const Atom& atom, int open, const std::unordered_set<Atom, AtomHash>& known,
                   const SideCounts& side_counts, RuleAggregation how, const SideScratch& s,
                   const std::vector<double>& scores) {
  const int truth = atom.args[static_cast<std::size_t>(open)];
  const int truth_at = s.slot[static_cast<std::size_t>(truth)];
  const Prediction none;
  const Prediction& truth_prediction = truth_at ? s.predictions[static_cast<std::size_t>(truth_at - 1)] : none;
  const auto filtered = side_counts.find(side_key(atom.predicate, atom.args[static_cast<std::size_t>(1 - open)], open));
  const long long known_here = filtered == side_counts.end() ? 0 : filtered->second - (known.count(atom) ? 1 : 0);
  const long long others = kb.constants.size() - 1 - known_here;  // unfiltered corruptions
  long long above = 0, equal = 0, predicted = 0;
  Atom corrupted = atom;
  for (std::size_t i = 0; i < s.reached.size(); ++i) {
    const int c = s.reached[i];
    if (c == truth) continue;
    corrupted.args[static_cast<std::size_t>(open)] = c;
    if (known.count(corrupted)) continue;
    ++predicted;
    int order = compare(s.predictions[i], truth_prediction, how);
    if (order == 0 && !scores.empty()) {
      const double mine = scores[static_cast<std::size_t>(c)], theirs = scores[static_cast<std::size_t>(truth)];
      order = mine > theirs ? 1 : mine < theirs ? -1 : 0;
    }
    above += order > 0, equal += order == 0;
  }
  if (truth_at == 0 && scores.empty()) equal += others - predicted;  // the unpredicted, tied with the truth
  if (truth_at == 0 && !scores.empty()) {
    const auto [a, level] = unpredicted_against(atom, open, scores, known, s);
    above += a, equal += level;
  }
  SideRank r;
  r.side = open;
  r.mean = 1 + static_cast<double>(above) + static_cast<double>(equal) / 2;
  r.optimistic = 1 + static_cast<double>(above);
  r.scored = predicted;
  r.corruptions = others;
  r.tied = r.tied_on_score = equal > 0;
  return r;
}

// What the rules and the model say of one side, to rank its truth with:
// the unfiltered constants the rules predicted (besides the truth) whose
// order the model's keys decide, with the model's keys of the truth
// (keys[0]) and of each of them (keys[1 + i]). When the rules predict the
// truth, only the constants they tie with it need the model (the rules
// order the others: `above_by_rules` of them above it); when they do not,
// every predicted constant does, to take it out of the model's own count.
struct PredictedSide {
  std::vector<std::size_t> predicted;  // indices into SideScratch::reached
  std::vector<RankKey> keys;
  bool truth_predicted = false;
  long long above_by_rules = 0;
};

PredictedSide keys_of_predicted(const Model& model, const Atom& atom, int open, const ScoreOptions& scoring,
                                const std::unordered_set<Atom, AtomHash>& known, const SideScratch& s, RuleAggregation how) {
  const int truth = atom.args[static_cast<std::size_t>(open)];
  const int truth_at = s.slot[static_cast<std::size_t>(truth)];
  PredictedSide side;
  side.truth_predicted = truth_at != 0;
  std::vector<Atom> atoms{atom};
  Atom corrupted = atom;
  for (std::size_t i = 0; i < s.reached.size(); ++i) {
    corrupted.args[static_cast<std::size_t>(open)] = s.reached[i];
    if (s.reached[i] == truth || known.count(corrupted)) continue;
    if (side.truth_predicted) {
      const int order = compare(s.predictions[i], s.predictions[static_cast<std::size_t>(truth_at - 1)], how);
      side.above_by_rules += order > 0;
      if (order != 0) continue;
    }
    side.predicted.push_back(i);
    atoms.push_back(corrupted);
  }
  side.keys = rank_keys(model, atoms, scoring);
  return side;
}

// The truth's rank with the rules first and the model's keys after them,
// from the model's own rank of the side (`alone`: the constants above the
// truth and level with it among all unfiltered ones).
SideRank rank_side_rules_first(const SideRank& alone, const PredictedSide& side) {
  const RankKey& t = side.keys[0];
  long long above = side.above_by_rules, level = 0;
  for (std::size_t j = 0; j < side.predicted.size(); ++j)  // the model's order
    above += side.keys[1 + j] > t, level += side.keys[1 + j] == t;
  if (!side.truth_predicted) {  // every predicted constant (all scored) is above; the unpredicted are ordered by the model
    const long long alone_above = std::llround(alone.optimistic - 1);
    const long long alone_level = std::llround(2 * (alone.mean - alone.optimistic));
    above = static_cast<long long>(side.predicted.size()) + alone_above - above;
    level = alone_level - level;
  }
  SideRank r = alone;
  r.mean = 1 + static_cast<double>(above) + static_cast<double>(level) / 2;
  r.optimistic = 1 + static_cast<double>(above);
  r.scored = static_cast<long long>(side.predicted.size());
  r.tied = r.tied_on_score = level > 0;
  return r;
}

}  // namespace

std::vector<RulePrediction> predict_by_rules(const RelationGraph& graph, const std::vector<MinedRule>& rules,
                                             const Atom& atom, int open) {
  const AppliedRules applied(graph.num_relations(), rules, atom.predicate);
  SideScratch s;
  s.slot.assign(static_cast<std::size_t>(graph.num_nodes()), 0);
  PathWalker walker(graph);
  predict(applied, atom.predicate, atom.args[static_cast<std::size_t>(1 - open)], open, RuleAggregation::Max, s, graph, walker);
  std::vector<RulePrediction> out;
  for (std::size_t i = 0; i < s.reached.size(); ++i)
    out.push_back({s.reached[i], std::move(s.predictions[i].confidences), s.predictions[i].first_rule,
                   s.predictions[i].noisy_or, s.predictions[i].by_paths});
  std::sort(out.begin(), out.end(), [](const RulePrediction& a, const RulePrediction& b) {
    const int order = compare_confidences(a.confidences, b.confidences);
    return order > 0 || (order == 0 && a.constant < b.constant);
  });
  return out;
}

RankingResult rank_rules_first(const Model& model, const std::vector<MinedRule>& rules, const std::vector<Atom>& test,
                               const std::unordered_set<Atom, AtomHash>& known, const ScoreOptions& scoring,
                               RuleAggregation how, const RankingOptions& options, RankingResult* model_alone) {
  for (const Atom& a : test)
    if (a.args.size() != 2)
      throw std::invalid_argument("ranking by rules needs binary test atoms, got " + to_string(model.kb, a));
  const RankingResult alone = evaluate_ranking(model, test, known, scoring, options);
  if (alone.given_up) {
    if (model_alone) *model_alone = alone;
    return alone;
  }
  const RelationGraph g(model.kb);
  const AppliedRules applied(model.kb.predicates.size(), rules);
  std::vector<SideRank> ranks(alone.ranks.size());
#pragma omp parallel
  {
    SideScratch scratch;
    scratch.slot.assign(static_cast<std::size_t>(model.kb.constants.size()), 0);
    PathWalker walker(g);
#pragma omp for schedule(dynamic, 4)
    for (std::size_t i = 0; i < alone.ranks.size(); ++i) {
      const Atom& atom = test[alone.ranks[i].triple];
      const int open = alone.ranks[i].side;
      predict(applied, atom.predicate, atom.args[static_cast<std::size_t>(1 - open)], open, how, scratch, g, walker);
      const PredictedSide side = keys_of_predicted(model, atom, open, scoring, known, scratch, how);
      ranks[i] = rank_side_rules_first(alone.ranks[i], side);
    }
  }
  if (model_alone) *model_alone = alone;
  return summarise_ranks(std::move(ranks));
}

namespace {

// The rank of the side's truth among the unfiltered constants when c scores
// keys[c].score + weight * best[c], ties ordered by keys[c].tie_break.
SideRank rank_side_with_evidence(const Atom& atom, int open, const std::vector<RankKey>& keys, const std::vector<double>& best,
                                 double weight, const std::unordered_set<Atom, AtomHash>& known) {
  const int truth = atom.args[static_cast<std::size_t>(open)];
  const auto total = [&](int c) {
    return with_rule_evidence(keys[static_cast<std::size_t>(c)], weight, best[static_cast<std::size_t>(c)]);
  };
  const RankKey t = total(truth);
  long long above = 0, level = 0, corruptions = 0;
  Atom corrupted = atom;
  for (int c = 0; c < static_cast<int>(keys.size()); ++c) {
    corrupted.args[static_cast<std::size_t>(open)] = c;
    if (c == truth || known.count(corrupted)) continue;
    ++corruptions;
    const RankKey k = total(c);
    above += k > t, level += k == t;
  }
  SideRank r;
  r.side = open;
  r.mean = 1 + static_cast<double>(above) + static_cast<double>(level) / 2;
  r.optimistic = 1 + static_cast<double>(above);
  r.scored = r.corruptions = corruptions;
  r.tied = r.tied_on_score = level > 0;
  return r;
}

}  // namespace

std::vector<RankingResult> rank_with_rule_evidence(const Model& model, const std::vector<MinedRule>& rules,
                                                   const std::vector<double>& weights, const std::vector<Atom>& test,
                                                   const std::unordered_set<Atom, AtomHash>& known,
                                                   const ScoreOptions& scoring, RuleAggregation how,
                                                   const RankingOptions& options) {
  for (const Atom& a : test)
    if (a.args.size() != 2)
      throw std::invalid_argument("ranking by rules needs binary test atoms, got " + to_string(model.kb, a));
  const RelationGraph g(model.kb);
  const AppliedRules applied(model.kb.predicates.size(), rules);
  std::vector<RankingResult> results(weights.size());
  for (RankingResult& r : results) r.ranks.resize(2 * test.size());
  std::size_t done = 0;
  const GiveUp given_up(options.give_up);
#pragma omp parallel
  {
    SideScratch scratch;
    scratch.slot.assign(static_cast<std::size_t>(model.kb.constants.size()), 0);
    PathWalker walker(g);
#pragma omp for schedule(dynamic, 4)
    for (std::size_t i = 0; i < 2 * test.size(); ++i) {
      if (given_up()) continue;
      const Atom& atom = test[i / 2];
      const int open = static_cast<int>(i % 2);
      predict(applied, atom.predicate, atom.args[static_cast<std::size_t>(1 - open)], open, how, scratch, g, walker);
      std::vector<double> best(static_cast<std::size_t>(model.kb.constants.size()), 0.0);
      for (std::size_t j = 0; j < scratch.reached.size(); ++j)
        best[static_cast<std::size_t>(scratch.reached[j])] = rule_evidence(how, scratch.predictions[j].first_confidence,
                                                                           scratch.predictions[j].noisy_or,
                                                                           scratch.predictions[j].by_paths);
      std::vector<Atom> atoms(best.size(), atom);
      for (std::size_t c = 0; c < atoms.size(); ++c) atoms[c].args[static_cast<std::size_t>(open)] = static_cast<int>(c);
      const std::vector<RankKey> keys = rank_keys(model, atoms, scoring);
      for (std::size_t w = 0; w < weights.size(); ++w) {
        results[w].ranks[i] = rank_side_with_evidence(atom, open, keys, best, weights[w], known);
        results[w].ranks[i].triple = i / 2;
      }
#pragma omp critical(ntp_rule_evidence_progress)
      if (options.progress) options.progress(++done, 2 * test.size());
    }
  }
  for (RankingResult& r : results)  // given up: some sides were never ranked
    r = given_up.said() ? given_up_ranking() : summarise_ranks(std::move(r.ranks));
  return results;
}

RankingResult rank_by_rules(const KnowledgeBase& kb, const std::vector<MinedRule>& rules,
                            const std::vector<Atom>& test, const std::unordered_set<Atom, AtomHash>& known,
                            const RuleRankingOptions& o) {
  for (const Atom& a : test)
    if (a.args.size() != 2) throw std::invalid_argument("ranking by rules needs binary test atoms, got " + to_string(kb, a));
  const RelationGraph g(kb);
  const AppliedRules applied(kb.predicates.size(), rules);
  const SideCounts side_counts = count_sides(known);
  std::vector<SideRank> ranks(2 * test.size());
  std::size_t done = 0;
#pragma omp parallel
  {
    SideScratch scratch;
    scratch.slot.assign(static_cast<std::size_t>(kb.constants.size()), 0);
    PathWalker walker(g);
#pragma omp for schedule(dynamic, 4)
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const Atom& atom = test[i / 2];
      const int open = static_cast<int>(i % 2);
      predict(applied, atom.predicate, atom.args[static_cast<std::size_t>(1 - open)], open, o.aggregation, scratch, g, walker);
      const std::vector<double> scores = o.tie_scores ? o.tie_scores(atom, open) : std::vector<double>();
      ranks[i] = rank_side(kb, atom, open, known, side_counts, o.aggregation, scratch, scores);
      ranks[i].triple = i / 2;
#pragma omp critical(ntp_rule_ranking_progress)
      if (o.progress) o.progress(++done, ranks.size());
    }
  }
  return summarise_ranks(std::move(ranks));
}

}  // namespace ntp
