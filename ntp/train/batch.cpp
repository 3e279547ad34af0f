// ntp/train/batch.cpp: positives and their corruptions, step by step (see batch.h).
#include "ntp/train/batch.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

namespace ntp {

namespace {

// The key of `fact` in facts_by_constants_: its arguments, sorted.
std::vector<int> constants_of(const Atom& fact) {
  std::vector<int> k = fact.args;
  std::sort(k.begin(), k.end());
  return k;
}

// For each predicate p, the predicates a predicate corruption of a p fact may
// take: those of facts of p's arity that share no argument tuple with p in
// `kb`. A relation that shares one is likely implied by p or implies it
// (parentOf(x, y) holds wherever fatherOf(x, y) does), so p's facts under its
// name would often be true facts that training has not seen.
std::vector<std::vector<int>> stand_in_predicates(const KnowledgeBase& kb) {
  std::map<std::vector<int>, std::set<int>> predicates_of_tuple;
  std::vector<std::size_t> arity(kb.predicates.size(), 0);
  for (const Atom& fact : kb.facts) {
    predicates_of_tuple[fact.args].insert(fact.predicate);
    arity[fact.predicate] = fact.args.size();
  }
  std::vector<std::set<int>> shares(kb.predicates.size());
  for (const auto& [tuple, predicates] : predicates_of_tuple)
    for (int p : predicates) shares[p].insert(predicates.begin(), predicates.end());  // p itself among them
  std::vector<std::vector<int>> out(kb.predicates.size());
  for (int p = 0; p < kb.predicates.size(); ++p)
    for (int q = 0; q < kb.predicates.size(); ++q)
      if (arity[q] == arity[p] && arity[q] > 0 && shares[p].count(q) == 0) out[p].push_back(q);
  return out;
}

}  // namespace

TrainingBatches::TrainingBatches(const KnowledgeBase& kb, const TrainOptions& options)
    : kb_(kb),
      batch_(static_cast<std::size_t>(options.batch)),
      negatives_(options.negatives),
      predicate_negatives_(options.predicate_negatives),
      order_(kb.facts.size()),
      rng_(options.seed) {
  if (kb.facts.empty()) throw std::invalid_argument("no training facts");
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  if (predicate_negatives_ > 0) stand_ins_ = stand_in_predicates(kb);
  if (options.mask == TrainingMask::Pair)
    for (std::size_t f = 0; f < kb.facts.size(); ++f) facts_by_constants_[constants_of(kb.facts[f])].push_back(static_cast<int>(f));
}

void TrainingBatches::shuffle() { std::shuffle(order_.begin(), order_.end(), rng_); }

StepGoals TrainingBatches::goals(std::size_t step) {
  StepGoals s;
  const std::size_t end = std::min(order_.size(), (step + 1) * batch_);
  for (std::size_t i = step * batch_; i < end; ++i) {
    const Atom& fact = kb_.facts[order_[i]];
    s.goals.push_back({fact, masked_facts(order_[i])});
    s.labels.push_back(1);
    for (int j = 0; j < negatives_; ++j) {
      const bool of_predicate = j >= negatives_ - predicate_negatives_;
      s.goals.push_back({of_predicate ? corrupt_predicate(fact, j) : corrupt(fact, j), -1});
      s.labels.push_back(0);
    }
  }
  return s;
}

std::vector<Atom> TrainingBatches::positives(std::size_t first, std::size_t last) const {
  std::vector<Atom> out;
  const std::size_t end = std::min(order_.size(), last * batch_);
  for (std::size_t i = first * batch_; i < end; ++i) out.push_back(kb_.facts[order_[i]]);
  return out;
}

// A corruption of `fact`: the subject (even i) or the object (odd i) replaced
// by a random constant, redrawn while it is a known fact. After 50 draws the
// last one is kept: a constant that completes every fact is rare and harmless.
Atom TrainingBatches::corrupt(const Atom& fact, int i) {
  std::uniform_int_distribution<int> pick(0, kb_.constants.size() - 1);
  const std::size_t position = fact.args.size() < 2 ? 0 : (i % 2 == 0 ? 0 : fact.args.size() - 1);
  Atom out = fact;
  for (int attempt = 0; attempt < 50; ++attempt) {
    out.args[position] = pick(rng_);
    if (!kb_.contains(out)) break;
  }
  return out;
}

// Corruption `i` of `fact` by its predicate: one of the predicate's stand-ins
// (stand_in_predicates), never a known fact, since a stand-in shares no
// argument tuple with it; without a stand-in a constant is corrupted
// instead, as corrupt() does.
Atom TrainingBatches::corrupt_predicate(const Atom& fact, int i) {
  const std::vector<int>& stand_ins = stand_ins_[fact.predicate];
  if (stand_ins.empty()) return corrupt(fact, i);
  std::uniform_int_distribution<std::size_t> pick(0, stand_ins.size() - 1);
  Atom out = fact;
  out.predicate = stand_ins[pick(rng_)];
  return out;
}

MaskedFacts TrainingBatches::masked_facts(std::size_t fact) const {
  MaskedFacts masked(static_cast<int>(fact));
  if (!facts_by_constants_.empty()) masked.ids = facts_by_constants_.at(constants_of(kb_.facts[fact]));
  return masked;
}

void TrainingBatches::save(TrainingState& state) const {
  state.order = order_;
  state.rng = rng_state_text(rng_);
}

void TrainingBatches::restore(const TrainingState& state) {
  if (state.order.size() != order_.size() || state.steps_done >= steps_per_epoch())
    throw std::invalid_argument("training state: " + std::to_string(state.order.size()) + " facts and step " +
                                std::to_string(state.steps_done) + ", but the KB has " + std::to_string(order_.size()) +
                                " facts in steps of " + std::to_string(batch_));
  order_ = state.order;
  restore_rng_state(rng_, state.rng);
}

}  // namespace ntp
