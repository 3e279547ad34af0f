// ntp/eval/completed_confidence.cpp: mined rules judged on the facts a model
// completes (see completed_confidence.h).
#include "ntp/eval/completed_confidence.h"

#include "ntp/mine/relation_graph.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <utility>

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

// score_atoms over `atoms` a chunk at a time, so that progress can be told.
std::vector<double> scores_in_chunks(const Model& model, const std::vector<Atom>& atoms, const ScoreOptions& scoring,
                                     const std::function<void(std::size_t, std::size_t)>& progress) {
  constexpr std::size_t kChunk = 4096;
  std::vector<double> scores;
  scores.reserve(atoms.size());
  for (std::size_t first = 0; first < atoms.size(); first += kChunk) {
    const std::vector<Atom> chunk(atoms.begin() + static_cast<std::ptrdiff_t>(first),
                                  atoms.begin() + static_cast<std::ptrdiff_t>(std::min(atoms.size(), first + kChunk)));
    for (double v : score_atoms(model, chunk, scoring)) scores.push_back(v);
    if (progress) progress(scores.size(), atoms.size());
  }
  return scores;
}

}  // namespace

double random_belief_rate(const Model& model, const ScoreOptions& scoring, int samples) {
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
    Atom corruption{f.predicate, {f.args[0], y}};
    if (y == f.args[0] || model.kb.contains(corruption)) continue;
    corrupted.push_back(std::move(corruption));
  }
  if (corrupted.empty()) return 0.0;
  const std::vector<double> scores = score_atoms(model, corrupted, with_fact_index(model, scoring));
  const auto held = std::count_if(scores.begin(), scores.end(), [](double v) { return v >= kBelievedScore; });
  return static_cast<double>(held) / static_cast<double>(corrupted.size());
}

std::vector<CompletedConfidence> completed_confidences(const Model& model, const std::vector<MinedRule>& rules,
                                                       const ScoreOptions& scoring, int max_pairs,
                                                       const std::function<void(std::size_t, std::size_t)>& progress) {
  for (const MinedRule& r : rules)
    if (has_constant(r)) throw std::invalid_argument("judging rules with a constant is not supported: " + rule_text(model.kb, r));
  const RelationGraph graph(model.kb);
  PathWalker walker(graph);
  std::vector<CompletedConfidence> out(rules.size());
  // Head atoms that are not training facts, each once (rules share many pairs),
  // and for each rule's such pair the atom's index.
  std::vector<Atom> unknown;
  std::unordered_map<Atom, std::size_t, AtomHash> index_of;
  std::vector<std::pair<std::size_t, std::size_t>> judged;  // (rule, index into unknown)
  for (std::size_t r = 0; r < rules.size(); ++r) {
    for (const auto& [x, y] : body_pairs(graph, walker, rules[r], max_pairs)) {
      ++out[r].pairs;
      Atom head{rules[r].head, {x, y}};
      if (model.kb.contains(head)) {
        ++out[r].facts;
        continue;
      }
      const auto [at, added] = index_of.emplace(std::move(head), unknown.size());
      if (added) unknown.push_back(at->first);
      judged.emplace_back(r, at->second);
    }
  }
  const std::vector<double> scores = scores_in_chunks(model, unknown, with_fact_index(model, scoring), progress);
  for (const auto& [r, atom] : judged)
    if (scores[atom] >= kBelievedScore) ++out[r].inferred;
  for (CompletedConfidence& c : out)
    c.confidence = c.pairs == 0 ? 0.0 : static_cast<double>(c.facts + c.inferred) / static_cast<double>(c.pairs);
  return out;
}

}  // namespace ntp
