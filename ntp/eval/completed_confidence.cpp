// ntp/eval/completed_confidence.cpp: mined rules judged on the facts a model
// completes (see completed_confidence.h).
#include "ntp/eval/completed_confidence.h"

#include "ntp/mine/relation_graph.h"

#include <algorithm>
#include <cstdint>
#include <random>

namespace ntp {
namespace {

// The pairs (x, y) of `rule`'s body, at most max_pairs: its subjects in an
// order drawn with a fixed seed, walked until max_pairs are reached.
std::vector<std::pair<int, int>> body_pairs(const RelationGraph& graph, PathWalker& walker, const MinedRule& rule,
                                            int max_pairs) {
  std::vector<int> subjects = graph.sources(rule.body.front());
  std::mt19937_64 draw(0x6a75646765ULL);
  std::shuffle(subjects.begin(), subjects.end(), draw);
  std::vector<std::pair<int, int>> pairs;
  for (int x : subjects) {
    for (int y : walker.walk(rule.body, x)) {
      if (static_cast<int>(pairs.size()) == max_pairs) return pairs;
      pairs.emplace_back(x, y);
    }
  }
  return pairs;
}

bool is_fact(const RelationGraph& graph, int relation, int x, int y) {
  const EdgeSpan out = graph.edges(x, forward_step(relation));
  return std::any_of(out.begin(), out.end(), [y](const Edge& e) { return e.node == y; });
}

}  // namespace

double random_belief_rate(const Model& model, const ScoreOptions& scoring, int samples) {
  const RelationGraph graph(model.kb);
  std::vector<const Atom*> binary;
  for (const Atom& f : model.kb.facts)
    if (f.args.size() == 2) binary.push_back(&f);
  const int constants = model.kb.constants.size();
  if (binary.empty() || constants < 2) return 0.0;
  std::mt19937_64 draw(0x72616e646f6dULL);
  std::vector<Atom> corrupted;
  for (int tries = 0; static_cast<int>(corrupted.size()) < samples && tries < 20 * samples; ++tries) {
    const Atom& f = *binary[draw() % binary.size()];
    const int y = static_cast<int>(draw() % static_cast<std::uint64_t>(constants));
    if (y == f.args[0] || is_fact(graph, f.predicate, f.args[0], y)) continue;
    corrupted.push_back(Atom{f.predicate, {f.args[0], y}});
  }
  if (corrupted.empty()) return 0.0;
  const std::vector<double> scores = score_atoms(model, corrupted, with_fact_index(model, scoring));
  const auto held = std::count_if(scores.begin(), scores.end(), [](double v) { return v >= kBelievedScore; });
  return static_cast<double>(held) / static_cast<double>(corrupted.size());
}

std::vector<CompletedConfidence> completed_confidences(const Model& model, const std::vector<MinedRule>& rules,
                                                       const ScoreOptions& scoring, int max_pairs) {
  const RelationGraph graph(model.kb);
  PathWalker walker(graph);
  std::vector<CompletedConfidence> out(rules.size());
  std::vector<Atom> unknown;          // head atoms that are not training facts, for every rule
  std::vector<std::size_t> owner;     // (unknown): the rule each belongs to
  for (std::size_t r = 0; r < rules.size(); ++r) {
    for (const auto& [x, y] : body_pairs(graph, walker, rules[r], max_pairs)) {
      ++out[r].pairs;
      if (is_fact(graph, rules[r].head, x, y)) {
        ++out[r].facts;
      } else {
        unknown.push_back(Atom{rules[r].head, {x, y}});
        owner.push_back(r);
      }
    }
  }
  const std::vector<double> scores = score_atoms(model, unknown, with_fact_index(model, scoring));
  for (std::size_t i = 0; i < unknown.size(); ++i)
    if (scores[i] >= kBelievedScore) ++out[owner[i]].inferred;
  for (CompletedConfidence& c : out)
    c.confidence = c.pairs == 0 ? 0.0 : static_cast<double>(c.facts + c.inferred) / static_cast<double>(c.pairs);
  return out;
}

}  // namespace ntp
