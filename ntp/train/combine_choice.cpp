// ntp/train/combine_choice.cpp: choosing the combine rule on dev (see combine_choice.h).
#include "ntp/train/combine_choice.h"

#include "ntp/index/make_fact_index.h"
#include "ntp/eval/ranking.h"
#include "ntp/kb/text.h"
#include "ntp/train/dev_metric.h"
#include "ntp/train/rule_choice.h"
#include "ntp/train/step_timer.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <utility>

namespace ntp {

void check_combine_choice(bool complex, const TrainingData& data) {
  if (!complex) throw std::invalid_argument("choosing the combine rule on dev needs an NTPλ model (--complex)");
  if (dev_metric_name(data).empty()) throw std::invalid_argument("choosing the combine rule on dev needs dev atoms");
}

namespace {

constexpr Combine kRules[] = {Combine::Mean, Combine::Max, Combine::Proof};

using Clock = std::chrono::steady_clock;

// A labelled dev file (WN11): each rule's accuracy, measured whole (cheap:
// one score per atom, no ranking).
void measure_labelled(Model& model, const TrainingData& data, const ScoreOptions& scoring, std::size_t max_dev_atoms,
                      CombineChoice& choice) {
  for (Combine rule : kRules) {
    model.prover.combine = rule;
    choice.measured.emplace_back(rule, dev_metric(model, data, scoring, max_dev_atoms));
  }
}

// Ranked dev facts: each rule's MRR on the same atoms, ranked round by round
// until all are done, the budget has run out or a stop is asked for.
void measure_in_rounds(Model& model, const TrainingData& data, const ScoreOptions& scoring, std::size_t max_dev_atoms,
                       const ChoiceLimits& limits, std::ostream* progress, CombineChoice& choice) {
  const VariantsMeasured measured =
      measure_variants(model, data, scoring, max_dev_atoms, limits, progress, "under mean, max and proof",
                       std::size(kRules), [](Model& m, std::size_t r) { m.prover.combine = kRules[r]; });
  choice.dev_atoms = measured.done.atoms;
  choice.over_budget = measured.done.over_budget;
  choice.stopped = measured.done.stopped;
  for (std::size_t r = 0; r < measured.mrr.size(); ++r) choice.measured.emplace_back(kRules[r], measured.mrr[r]);
}

// Whether a round of `next` atoms, after `done` atoms ranked in `elapsed`
// seconds, would end past the budget at the pace so far (the first round
// is always ranked).
bool would_overrun(const ChoiceLimits& limits, std::size_t done, std::size_t next, double elapsed) {
  if (done == 0 || limits.seconds <= 0) return false;
  return elapsed + elapsed / static_cast<double>(done) * static_cast<double>(next) > limits.seconds;
}

// Whether this process's stop flag is raised (stop_asked asks them all).
bool stop_raised_here(const ChoiceLimits& limits) { return limits.stop != nullptr && limits.stop->load(); }

}  // namespace

CutAsked::CutAsked(std::function<bool()> give_up, std::function<bool(bool)> agree) : agree_(std::move(agree)) {
  ranking_.give_up = std::move(give_up);
}

bool stop_asked(const ChoiceLimits& limits) { return any_process(limits.share, stop_raised_here(limits)); }

RoundsDone rank_in_rounds(const std::vector<Atom>& atoms, const ChoiceLimits& limits, std::ostream* progress,
                          const std::string& what,
                          const std::function<bool(const std::vector<Atom>&, const CutAsked& cut)>& rank_round) {
  RoundsDone done;
  const Clock::time_point start = Clock::now();
  bool cut_for_budget = false;
  // done.atoms changes only between rounds, so the rankings' threads may read it.
  const CutAsked cut(
      [&] {
        return stop_raised_here(limits) || (done.atoms > 0 && limits.seconds > 0 && seconds_since(start) > limits.seconds);
      },
      [&](bool given_up) {
        if (!any_process(limits.share, given_up)) return false;
        cut_for_budget = !stop_asked(limits);
        return true;
      });
  Clock::time_point shown = start;
  std::size_t round_size = 1;  // grows while rounds are quick (kQuickRoundSeconds)
  while (done.atoms < atoms.size()) {
    done.stopped = stop_asked(limits);
    const std::size_t end = std::min(atoms.size(), done.atoms + round_size);
    done.over_budget = !done.stopped && any_process(limits.share, would_overrun(limits, done.atoms, end - done.atoms,
                                                                                 seconds_since(start)));
    if (done.stopped || done.over_budget) break;
    const Clock::time_point round_start = Clock::now();
    if (!rank_round(std::vector<Atom>(atoms.begin() + static_cast<std::ptrdiff_t>(done.atoms),
                                      atoms.begin() + static_cast<std::ptrdiff_t>(end)),
                    cut)) {
      (cut_for_budget ? done.over_budget : done.stopped) = true;
      break;
    }
    done.atoms = end;
    // Every process of a group agrees, so that their rounds stay the same.
    if (!any_process(limits.share, seconds_since(round_start) >= kQuickRoundSeconds))
      round_size = std::min(2 * round_size, kCombineChoiceRound);
    if (progress && (done.atoms == atoms.size() || seconds_since(shown) > 10)) {
      shown = Clock::now();
      const double elapsed = seconds_since(start);
      *progress << "  ranked " << done.atoms << "/" << atoms.size() << " dev atoms " << what << "  elapsed "
                << format_duration(elapsed) << "  eta "
                << format_duration(elapsed / static_cast<double>(done.atoms) * static_cast<double>(atoms.size() - done.atoms))
                << std::endl;
    }
  }
  return done;
}

ReciprocalsInRounds reciprocals_in_rounds(
    const std::vector<Atom>& atoms, const ChoiceLimits& limits, std::ostream* progress, const std::string& what,
    std::size_t variants,
    const std::function<std::vector<RankingResult>(const std::vector<Atom>&, const CutAsked& cut)>& rank_round) {
  ReciprocalsInRounds gathered;
  gathered.reciprocal.resize(variants);
  gathered.done = rank_in_rounds(atoms, limits, progress, what, [&](const std::vector<Atom>& round, const CutAsked& cut) {
    const std::vector<RankingResult> ranked = rank_round(round, cut);
    if (ranked.empty()) return false;  // cut short: nothing of the round is kept
    if (ranked.size() != variants) throw std::logic_error("reciprocals_in_rounds: one ranking a variant");
    for (std::size_t v = 0; v < variants; ++v) {
      const std::vector<double> sides = reciprocal_ranks(ranked[v]);
      gathered.reciprocal[v].insert(gathered.reciprocal[v].end(), sides.begin(), sides.end());
    }
    return true;
  });
  return gathered;
}

std::string rounds_cut_note(bool over_budget, bool stopped, std::size_t atoms) {
  if (over_budget) return " (the time budget ran out: " + atoms_text(atoms) + " measured)";
  if (stopped) return " (stopped after " + atoms_text(atoms) + ")";
  return "";
}

VariantsMeasured measure_variants(Model& model, const TrainingData& data, const ScoreOptions& scoring,
                                  std::size_t max_dev_atoms, const ChoiceLimits& limits, std::ostream* progress,
                                  const std::string& what, std::size_t variants,
                                  const std::function<void(Model&, std::size_t)>& apply) {
  const std::vector<Atom> atoms = dev_facts_measured(data, max_dev_atoms);
  const auto known = filter_set(model, data.dev);
  ReciprocalsInRounds gathered =
      reciprocals_in_rounds(atoms, limits, progress, what, variants, [&](const std::vector<Atom>& round, const CutAsked& cut) {
        std::vector<RankingResult> each;
        for (std::size_t v = 0; v < variants; ++v) {
          apply(model, v);
          each.push_back(evaluate_ranking(model, round, known, scoring, cut.ranking()));
          if (cut.ended(each.back())) return std::vector<RankingResult>{};
        }
        return each;
      });
  VariantsMeasured measured;
  measured.done = gathered.done;
  if (measured.done.atoms == 0) return measured;
  for (const std::vector<double>& sides : gathered.reciprocal) measured.mrr.push_back(mean_of(sides));
  measured.reciprocal = std::move(gathered.reciprocal);
  return measured;
}

CombineChoice choose_combine(Model& model, const TrainingData& data, std::size_t max_dev_atoms, std::ostream* progress,
                             const ChoiceLimits& limits) {
  check_combine_choice(model.prover.complex, data);
  CombineChoice choice;
  choice.chosen = model.prover.combine;  // kept when nothing is measured
  choice.dev_atoms = dev_atoms_measured(data, max_dev_atoms);
  ScoreOptions scoring;
  scoring.facts = make_fact_index(model, "exact");  // as `ntp eval` ranks; built once for the three
  if (!data.dev_labelled.empty()) measure_labelled(model, data, scoring, max_dev_atoms, choice);
  else measure_in_rounds(model, data, scoring, max_dev_atoms, limits, progress, choice);
  double best = -1;
  for (const auto& [rule, metric] : choice.measured) {
    if (progress) {
      char line[64];
      std::snprintf(line, sizeof line, "  %-5s dev %s %.4f", combine_name(rule), dev_metric_name(data).c_str(), metric);
      *progress << line << std::endl;
    }
    if (metric > best) best = metric, choice.chosen = rule;
  }
  model.prover.combine = choice.chosen;
  return choice;
}

std::string describe(const CombineChoice& choice, const std::string& metric) {
  std::vector<std::pair<std::string, double>> measured;
  for (const auto& [rule, value] : choice.measured) measured.emplace_back(combine_name(rule), value);
  return describe_dev_choice(combine_name(choice.chosen), metric, choice.dev_atoms, measured) +
         rounds_cut_note(choice.over_budget, choice.stopped, choice.dev_atoms);
}

}  // namespace ntp
