// ntp/train/step.cpp: one training step, phase by phase (see step.h).
#include "ntp/train/step.h"

#include "ntp/index/make_fact_index.h"
#include "ntp/model/complex.h"
#include "ntp/model/conditional.h"
#include "ntp/model/mentions.h"
#include "ntp/model/rule_attention.h"
#include "ntp/train/non_finite_error.h"
#include "ntp/train/shared_gradient.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <string>

namespace ntp {

namespace {

std::unique_ptr<ad::Optimizer> optimizer_for(const TrainOptions& o) {
  ad::OptimizerOptions settings;
  settings.learning_rate = o.learning_rate;
  settings.l2 = o.l2;
  settings.clip = o.clip;
  return ad::make_optimizer(o.optimizer, settings);
}

// The embedding tables (the predicates first), with rule attention its
// logits, and with conditional rules the reformulator's weights.
std::vector<ad::Parameter*> trained_tables(Model& model) {
  std::vector<ad::Parameter*> tables = {&model.predicates, &model.constants};
  if (has_rule_attention(model)) tables.push_back(&model.rule_attention);
  if (has_conditioning(model)) tables.push_back(&model.conditioning.weights);
  if (has_mentions(model)) tables.push_back(&model.mentions.table);
  return tables;
}

ProofBatch search(Learner& l, const StepGoals& batch) { return l.prover.search(batch.goals); }

// Starts the step's tape (cleared, for every model). With conditional
// rules, computes on it the conditioned rows the batch's proofs can read
// (those of its goals' relations; update() leaves every conditioned row
// stale) and writes them to the model for the search to read. Computing
// only these, and only once, is what keeps a conditional step near a plain
// one's cost: a whole table is 140 slots x 46 relations on UMLS.
std::optional<PartialTable> conditioned_rows_for(Learner& l, const StepGoals& batch) {
  l.tape.clear();
  if (!has_conditioning(l.model)) return std::nullopt;
  std::vector<int> goal_rows;
  for (const Goal& g : batch.goals) goal_rows.push_back(g.atom.predicate);
  std::sort(goal_rows.begin(), goal_rows.end());
  goal_rows.erase(std::unique(goal_rows.begin(), goal_rows.end()), goal_rows.end());
  PartialTable table = predicate_table(l.tape, l.model, reachable_conditioned_rows(l.model, goal_rows));
  write_conditioned_rows(l.model, l.tape, table);
  return table;
}

// Each goal's score on the tape conditioned_rows_for began.
ad::Var score(Learner& l, const ProofBatch& proofs, double temperature, const std::optional<PartialTable>& table) {
  if (table) return score_goals(l.tape, l.model, proofs, temperature, *table);
  return score_goals(l.tape, l.model, proofs, temperature);
}

// The cross-entropy of the goals' ComplEx scores.
ad::Var complex_loss(Learner& l, const StepGoals& batch) {
  std::vector<Atom> atoms;
  for (const Goal& g : batch.goals) atoms.push_back(g.atom);
  return ad::binary_cross_entropy(l.tape, complex_scores(l.tape, l.model, atoms), batch.labels);
}

// ComplEx's 1-vs-all loss: the candidate constants scored as the object of
// each positive, then as its subject, (2n, candidates) logits against the
// true constants.
ad::Var complex_all_loss(Learner& l, const std::vector<Atom>& positives, const std::vector<ad::Index>& candidates) {
  ad::Tape& t = l.tape;
  const ad::Var queries = ad::concat_rows(t, {complex_query_rows(t, l.model, positives, 1),
                                              complex_query_rows(t, l.model, positives, 0)});  // (2n, d)
  const ad::Var constants = ad::gather(t, l.model.constants, candidates);  // (candidates, d)
  const auto column = [&](int constant) {
    return std::lower_bound(candidates.begin(), candidates.end(), ad::Index{constant}) - candidates.begin();
  };
  std::vector<ad::Index> targets;
  for (const Atom& a : positives) targets.push_back(column(a.args[1]));
  for (const Atom& a : positives) targets.push_back(column(a.args[0]));
  return ad::softmax_cross_entropy(t, ad::matmul_transposed(t, queries, constants), targets);
}

// The proofs' loss (TrainOptions::proof_loss); an NTPλ model adds its
// ComplEx scores' cross-entropy.
ad::Var loss(Learner& l, ad::Var scores, const StepGoals& batch) {
  const ad::Var total = l.proof_loss == ProofLoss::Ranking
                            ? ad::group_cross_entropy(l.tape, scores, static_cast<ad::Index>(l.proof_group))
                            : ad::binary_cross_entropy(l.tape, scores, batch.labels);
  if (!l.model.prover.complex) return total;
  return ad::add(l.tape, total, complex_loss(l, batch));
}

// A share's loss weighted by its part of the group's `all_items` (shared_gradient.h);
// alone, the loss as it is.
ad::Var weighted(Learner& l, ad::Var share_loss, std::size_t share_items, std::size_t all_items) {
  if (l.share.alone()) return share_loss;
  return ad::scale(l.tape, share_loss, share_weight(share_items, all_items));
}

// A group member's share of a step's goals (a positive with its corruptions
// under the ranking loss, Learner::proof_group) or of its 1-vs-all positives.
StepGoals share_for(const Learner& l, const StepGoals& goals) { return share_of(goals, l.share, l.proof_group); }
std::vector<Atom> share_for(const Learner& l, const std::vector<Atom>& positives) {
  return share_of(positives, l.share);
}

// What this process proves of a step's goals or positives: all of them
// alone; in a group its share (share_for), kept in `held`.
template <class Items>
const Items& to_prove(const Learner& l, const Items& all, std::optional<Items>& held) {
  if (l.share.alone()) return all;
  held = share_for(l, all);
  return *held;
}

// In a group, every process's gradient rows and loss summed into this one's
// (shared_gradient.h); alone, `value` and the gradient as they are.
double summed_over_group(Learner& l, double value, StepTimer& timer) {
  if (l.share.alone()) return value;
  std::size_t sent = 0;
  const double sum = sum_over_group(l.share, l.parameters, value, &sent);
  timer.time().group_bytes += static_cast<double>(sent);
  timer.lap(&TimeSplit::group);
  return sum;
}

// The loss's value; throws NonFiniteError if it is NaN or infinite.
double loss_value(const ad::Tape& tape, ad::Var loss, const StepPosition& at) {
  const double value = tape.scalar(loss);
  if (!std::isfinite(value)) throw NonFiniteError(at.epoch, at.step + 1, "the loss is " + std::to_string(value));
  return value;
}

// The rows the coming optimiser step will move (it clears `touched`).
MovedRows rows_to_move(const Model& model) {
  MovedRows moved;
  moved.predicates.assign(model.predicates.touched.begin(), model.predicates.touched.end());
  moved.constants.assign(model.constants.touched.begin(), model.constants.touched.end());
  // Every slot is a mix of the KB predicates, every conditioned row a function
  // of other rows: all move with each step (conditioned rows are written
  // later: the next step writes those it reads).
  if (has_rule_attention(model) || has_conditioning(model))
    for (int r = model.num_kb_predicates; r < model.predicates.value.rows(); ++r) moved.predicates.push_back(r);
  return moved;
}

// Throws NonFiniteError if a row the step moved holds a NaN or an infinity
// (a non-finite gradient reaches the embeddings through the update).
void check_finite(const Model& model, const MovedRows& moved, const StepPosition& at) {
  const int conditioned = model.num_kb_predicates + model.num_rule_slots;  // rewritten by the next step, not here
  for (int r : moved.predicates)
    if (r < conditioned && !model.predicates.value.row(r).allFinite())
      throw NonFiniteError(at.epoch, at.step + 1, "predicate row " + model.predicate_row_name(r) + " is not finite");
  for (int c : moved.constants)
    if (!model.constants.value.row(c).allFinite())
      throw NonFiniteError(at.epoch, at.step + 1,
                           "the embedding of constant " + model.kb.constants.name(c) + " is not finite");
}

// Throws NonFiniteError if one of `rows` of `table` (a rule table: attention
// logits, reformulator weights) holds a NaN or an infinity: the rows
// computed from them would carry it into the next search.
void check_finite_rows(const ad::Parameter& table, const std::vector<Eigen::Index>& rows, const char* what,
                       const StepPosition& at) {
  for (Eigen::Index r : rows)
    if (!table.value.row(r).allFinite())
      throw NonFiniteError(at.epoch, at.step + 1, std::string(what) + " (row " + std::to_string(r) + ") are not finite");
}

// Zeroes and forgets the gradient of `table`'s touched rows that `keep`
// refuses, so that the optimiser leaves them where they are.
template <typename Keep>
void forget_rows(ad::Parameter& table, Keep keep) {
  std::vector<Eigen::Index> kept;
  for (Eigen::Index r : table.touched) {
    if (keep(r)) {
      kept.push_back(r);
      continue;
    }
    table.grad.row(r).setZero();
    table.is_touched[r] = 0;
  }
  table.touched = std::move(kept);
}

// TrainOptions::freeze_kb: the constants and the KB's relations get no update.
void freeze_kb_rows(Model& model) {
  model.constants.clear_grad();
  forget_rows(model.predicates, [&](Eigen::Index r) { return r >= model.num_kb_predicates; });
}

// The step computed every conditioned row its goals could reach, but only
// those its proofs compared (and the rows these are computed from) lead to
// the loss: the other slots' reformulator weights were touched with a zero
// gradient. Forgetting them leaves them where a step that computed only the
// compared rows would (no L2, no Adam momentum, no step count).
void forget_unread_slots(Model& model, const ProofBatch& proofs) {
  std::vector<int> compared;
  for (const Comparison& c : proofs.comparisons)
    if (c.table == Table::Predicate) compared.insert(compared.end(), {c.a, c.b});
  const std::vector<char> read = conditioned_rows_needed(model, compared);
  const std::vector<Conditioning::Row>& rows = model.conditioning.rows;
  std::vector<char> slot_read(static_cast<std::size_t>(model.num_rule_slots), 0);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (read[i]) slot_read[static_cast<std::size_t>(rows[i].slot - model.num_kb_predicates)] = 1;
  forget_rows(model.conditioning.weights, [&](Eigen::Index r) { return slot_read[static_cast<std::size_t>(r / model.dim)] != 0; });
}

// Counts the rows with a gradient in the tables the optimiser will move
// (TimeSplit::gradient_rows), before its step clears them.
void count_gradient_rows(const Learner& l, TimeSplit& time) {
  ++time.steps;
  for (const ad::Parameter* table : l.parameters) {
    time.gradient_rows += static_cast<long long>(table->touched.size());
    time.gradient_bytes += static_cast<double>(table->touched.size()) * static_cast<double>(table->value.cols()) *
                           sizeof(ad::Scalar);
  }
}

// The optimiser's step on every touched row; returns the rows it moved.
// Pattern rows move through their words (mentions.h): their gradient goes to
// the words first, and they are encoded again after the words moved.
MovedRows update(Learner& l, const StepPosition& at, TimeSplit& time) {
  push_pattern_gradients(l.model);
  count_gradient_rows(l, time);
  MovedRows moved = rows_to_move(l.model);
  std::vector<int> patterns;
  if (has_mentions(l.model)) patterns = patterns_reading(l.model, l.model.mentions.table.touched);
  moved.predicates.insert(moved.predicates.end(), patterns.begin(), patterns.end());
  const std::vector<Eigen::Index> logits = l.model.rule_attention.touched;  // the step clears them
  const std::vector<Eigen::Index> weights = l.model.conditioning.weights.touched;
  l.optimizer->step(l.parameters);
  encode_pattern_rows(l.model, patterns);
  if (has_rule_attention(l.model)) refresh_attended_slots(l.model);  // the slots follow their logits
  check_finite(l.model, moved, at);  // conditioned rows: the next step's, or refresh_rule_rows()
  check_finite_rows(l.model.rule_attention, logits, "the rule attention's logits", at);
  check_finite_rows(l.model.conditioning.weights, weights, "the reformulator's weights", at);
  return moved;
}

void refresh(Learner& l, RecallProbe& probe, const MovedRows& moved) {
  l.facts->embeddings_moved(moved);
  probe.embeddings_moved(moved);
}

// A ComplEx-only step's backward and update, after its loss is on the tape
// (none when this process's share of the goals is empty).
double complex_update(Learner& learner, std::optional<ad::Var> step_loss, std::size_t goals, const StepPosition& at,
                      StepTimer& timer) {
  timer.lap(&TimeSplit::forward);
  double value = 0;
  if (step_loss) {
    value = loss_value(learner.tape, *step_loss, at);
    learner.tape.backward(*step_loss);
  }
  timer.lap(&TimeSplit::backward);
  value = summed_over_group(learner, value, timer);
  update(learner, at, timer.time());
  timer.lap(&TimeSplit::optimiser);
  timer.time().goals += static_cast<long long>(goals);
  return value;
}

// The proofs of `goals` (this process's share of `all_goals`) on the tape,
// their loss differentiated; returns its value.
double differentiate_proofs(Learner& l, RecallProbe& probe, const StepGoals& goals, std::size_t all_goals,
                            double temperature, const StepPosition& at, StepTimer& timer) {
  const std::optional<PartialTable> table = conditioned_rows_for(l, goals);
  timer.lap(&TimeSplit::forward);
  const ProofBatch proofs = search(l, goals);
  timer.lap(&TimeSplit::proof_search);
  probe.after_search();
  timer.lap(&TimeSplit::recall_probes);
  const ad::Var scores = score(l, proofs, temperature, table);
  const ad::Var step_loss = weighted(l, loss(l, scores, goals), goals.goals.size(), all_goals);
  timer.lap(&TimeSplit::forward);
  const double value = loss_value(l.tape, step_loss, at);
  l.tape.backward(step_loss);
  if (table) forget_unread_slots(l.model, proofs);
  if (l.freeze_kb) freeze_kb_rows(l.model);
  timer.lap(&TimeSplit::backward);
  return value;
}

}  // namespace

Learner::Learner(Model& trained, const TrainOptions& options)
    : model(trained),
      optimizer(optimizer_for(options)),
      parameters(trained_tables(trained)),
      facts(make_fact_index(trained, trained.prover.index, options.index)),
      prover(trained, *facts, trained.prover),
      freeze_kb(options.freeze_kb),
      proof_loss(options.proof_loss),
      proof_group(options.proof_loss == ProofLoss::Ranking ? 1 + static_cast<std::size_t>(options.negatives) : 1) {
  if (options.l2_predicates >= 0) optimizer->set_l2(0, options.l2_predicates);  // trained_tables' first
}

double explore_temperature(const TrainOptions& o, int epoch) {
  const double half = std::max(1.0, o.epochs / 2.0);
  return o.explore * std::max(0.0, 1.0 - (epoch - 1) / half);
}

double train_step(Learner& learner, RecallProbe& probe, const StepGoals& batch, double temperature,
                  const StepPosition& at, StepTimer& timer) {
  std::optional<StepGoals> held;
  const StepGoals& goals = to_prove(learner, batch, held);
  if (!goals.goals.empty()) probe.before_search(at.step);  // a process with no goal searches nothing
  timer.start();
  double value = 0;
  if (!goals.goals.empty())
    value = differentiate_proofs(learner, probe, goals, batch.goals.size(), temperature, at, timer);
  value = summed_over_group(learner, value, timer);
  const MovedRows moved = update(learner, at, timer.time());
  timer.lap(&TimeSplit::optimiser);
  refresh(learner, probe, moved);
  timer.lap(&TimeSplit::index_maintenance);
  timer.time().goals += static_cast<long long>(goals.goals.size());
  return value;
}

double complex_step(Learner& learner, const StepGoals& batch, const StepPosition& at, StepTimer& timer) {
  timer.start();
  learner.tape.clear();
  std::optional<StepGoals> held;
  const StepGoals& goals = to_prove(learner, batch, held);
  std::optional<ad::Var> step_loss;
  if (!goals.goals.empty())
    step_loss = weighted(learner, complex_loss(learner, goals), goals.goals.size(), batch.goals.size());
  return complex_update(learner, step_loss, goals.goals.size(), at, timer);
}

double complex_all_step(Learner& learner, const std::vector<Atom>& positives, const std::vector<ad::Index>& candidates,
                        const StepPosition& at, StepTimer& timer) {
  timer.start();
  learner.tape.clear();
  std::optional<std::vector<Atom>> held;
  const std::vector<Atom>& mine = to_prove(learner, positives, held);
  std::optional<ad::Var> step_loss;
  if (!mine.empty())
    step_loss = weighted(learner, complex_all_loss(learner, mine, candidates), mine.size(), positives.size());
  return complex_update(learner, step_loss, mine.size(), at, timer);
}

std::vector<ad::Index> complex_candidates(const Model& model, const std::vector<Atom>& positives, int drawn,
                                          std::uint64_t seed, const StepPosition& at) {
  const ad::Index count = model.constants.value.rows();
  std::vector<ad::Index> out;
  if (drawn == 0 || drawn >= count) {  // as many draws as constants: score them all
    out.resize(static_cast<std::size_t>(count));
    std::iota(out.begin(), out.end(), ad::Index{0});
    return out;
  }
  for (const Atom& a : positives) out.insert(out.end(), a.args.begin(), a.args.end());
  std::seed_seq key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(at.epoch), static_cast<std::uint32_t>(at.step)};
  std::mt19937_64 rng(key);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(count) - 1);
  for (int i = 0; i < drawn; ++i) out.push_back(pick(rng));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void refresh_rule_rows(Learner& learner) { refresh_conditioned_rows(learner.model); }

void rebuild_index(Learner& learner, RecallProbe& probe) {
  learner.facts->all_moved();
  probe.all_moved();
}

}  // namespace ntp
