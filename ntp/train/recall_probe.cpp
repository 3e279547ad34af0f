// ntp/train/recall_probe.cpp: recall@1 of the fact index during training (see recall_probe.h).
#include "ntp/train/recall_probe.h"

#include "ntp/index/make_fact_index.h"
#include "ntp/index/recall.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ntp {

namespace {
constexpr std::size_t kRecordedQueries = 4096;         // at most this many of a step's queries are kept
constexpr std::uint64_t kProbeSeedMix = 0x9e3779b97f4a7c15ull;  // the probe's seed: training's, mixed
constexpr double kProbeOperations = 32e6;  // what a probe's exact scans may cost, in multiply-adds

// How many queries a probe can afford. The exact scan answers one in about
// C d + F operations (constant_index.h: a product of the goal's constant with
// the constant table, then every fact), while a training step costs the same
// on any KB: with a fixed sample, probing grew to half of a 500,000-fact
// epoch. Cutting the sample to kProbeOperations keeps it to a few percent
// (WN18RR: 7 queries; a 2M-fact KB: 1), and leaves small KBs' 64.
std::size_t affordable_sample(const Model& model, std::size_t wanted) {
  const double per_query = static_cast<double>(model.constants.value.rows()) * model.dim +
                           static_cast<double>(model.kb.facts.size());
  const double affordable = std::max(1.0, std::floor(kProbeOperations / std::max(per_query, 1.0)));
  return std::min(wanted, static_cast<std::size_t>(affordable));
}
}  // namespace

RecallProbe::RecallProbe(const Model& model, FactIndex& facts, const TrainOptions& options)
    : facts_(facts),
      exact_(options.recall_every > 0 && !facts.exact() && model.prover.k_facts > 0 ? make_fact_index(model, "brute")
                                                                                       : nullptr),
      every_(static_cast<std::size_t>(options.recall_every)),
      sample_(affordable_sample(model, static_cast<std::size_t>(options.recall_sample))),
      rng_(options.seed ^ kProbeSeedMix) {}

void RecallProbe::before_search(std::size_t step) {
  recording_ = exact_ && step % every_ == 0;
  if (recording_) facts_.record_queries(kRecordedQueries);
}

void RecallProbe::after_search() {
  if (!recording_) return;
  std::vector<FactQuery> asked = facts_.take_recorded();
  std::shuffle(asked.begin(), asked.end(), rng_);
  asked.resize(std::min(asked.size(), sample_));
  recall_sum_ += recall_at_k(facts_, *exact_, asked, 1);
  ++probes_;
  recording_ = false;
}

void RecallProbe::embeddings_moved(const MovedRows& moved) {
  if (exact_) exact_->embeddings_moved(moved);
}

void RecallProbe::all_moved() {
  if (exact_) exact_->all_moved();
}

void RecallProbe::start_epoch() {
  recall_sum_ = 0;
  probes_ = 0;
}

void RecallProbe::save(TrainingState& state) const {
  state.recall_sum = recall_sum_;
  state.recall_probes = probes_;
  state.probe_rng = rng_state_text(rng_);
}

void RecallProbe::restore(const TrainingState& state) {
  recall_sum_ = state.recall_sum;
  probes_ = state.recall_probes;
  restore_rng_state(rng_, state.probe_rng);
}

}  // namespace ntp
