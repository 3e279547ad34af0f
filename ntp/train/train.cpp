// ntp/train/train.cpp: the training loop (see train.h).
#include "ntp/train/train.h"

#include "autodiff/optim.h"
#include "ntp/model/rule_attention.h"
#include "ntp/model/complex.h"
#include "ntp/prover/prover.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/index/recall.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace ntp {

namespace {

using Clock = std::chrono::steady_clock;

// A corruption of `fact`: the subject (even i) or the object (odd i) replaced
// by a random constant, redrawn while it is a known fact. After 50 draws the
// last one is kept: a constant that completes every fact is rare and harmless.
Atom corrupt(const KnowledgeBase& kb, const Atom& fact, int i, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, kb.constants.size() - 1);
  const std::size_t position = fact.args.size() < 2 ? 0 : (i % 2 == 0 ? 0 : fact.args.size() - 1);
  Atom out = fact;
  for (int attempt = 0; attempt < 50; ++attempt) {
    out.args[position] = pick(rng);
    if (!kb.contains(out)) break;
  }
  return out;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string format_seconds(double s) {
  char buf[32];
  const int total = static_cast<int>(s + 0.5);
  if (total >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", total / 3600, total / 60 % 60);
  else std::snprintf(buf, sizeof buf, "%dm%02ds", total / 60, total % 60);
  return buf;
}

// Adds the seconds since `t` to `into` and restarts `t`.
void lap(double& into, Clock::time_point& t) {
  const auto now = Clock::now();
  into += std::chrono::duration<double>(now - t).count();
  t = now;
}

// The facts between each set of constants (arguments sorted), for
// TrainingMask::Pair: p(a, b) and q(b, a) share the entry {a, b}.
class FactsByConstants {
 public:
  explicit FactsByConstants(const KnowledgeBase& kb) {
    for (std::size_t f = 0; f < kb.facts.size(); ++f) facts_[key(kb.facts[f])].push_back(static_cast<int>(f));
  }
  const std::vector<int>& of(const Atom& fact) const { return facts_.at(key(fact)); }

 private:
  static std::vector<int> key(const Atom& fact) {
    std::vector<int> k = fact.args;
    std::sort(k.begin(), k.end());
    return k;
  }
  std::unordered_map<std::vector<int>, std::vector<int>, VectorHash> facts_;
};

// One step's goals: each positive followed by its corruptions. A positive
// masks itself, or with `pairs` every fact between its constants.
struct StepGoals {
  std::vector<Goal> goals;
  std::vector<double> labels;
};

StepGoals draw_goals(const KnowledgeBase& kb, const std::vector<std::size_t>& order, std::size_t begin,
                     std::size_t end, int negatives, const FactsByConstants* pairs, std::mt19937_64& rng) {
  StepGoals s;
  for (std::size_t i = begin; i < end; ++i) {
    const Atom& fact = kb.facts[order[i]];
    Goal positive{fact, static_cast<int>(order[i])};
    if (pairs) positive.masked.ids = pairs->of(fact);
    s.goals.push_back(std::move(positive));
    s.labels.push_back(1);
    for (int j = 0; j < negatives; ++j) {
      s.goals.push_back({corrupt(kb, fact, j, rng), -1});
      s.labels.push_back(0);
    }
  }
  return s;
}

// TrainOptions::explore's temperature in `epoch` (1-based): linear from
// explore down to 0 at the middle epoch, hard max from there on.
double explore_temperature(const TrainOptions& o, int epoch) {
  const double half = std::max(1.0, o.epochs / 2.0);
  return o.explore * std::max(0.0, 1.0 - (epoch - 1) / half);
}

// The rows the coming optimiser step will move (it clears `touched`).
MovedRows rows_to_move(const Model& model) {
  MovedRows moved;
  moved.predicates.assign(model.predicates.touched.begin(), model.predicates.touched.end());
  moved.constants.assign(model.constants.touched.begin(), model.constants.touched.end());
  if (has_rule_attention(model))  // every slot is a mix of the KB predicates, rewritten after each step
    for (int r = model.num_kb_predicates; r < model.predicates.value.rows(); ++r) moved.predicates.push_back(r);
  return moved;
}

// Throws NonFiniteError if a row the step moved holds a NaN or an infinity
// (a non-finite gradient reaches the embeddings through the update).
void check_finite(const Model& model, const MovedRows& moved, int epoch, std::size_t step) {
  for (int r : moved.predicates)
    if (!model.predicates.value.row(r).allFinite())
      throw NonFiniteError(epoch, step, "predicate row " + model.predicate_row_name(r) + " is not finite");
  for (int c : moved.constants)
    if (!model.constants.value.row(c).allFinite())
      throw NonFiniteError(epoch, step, "the embedding of constant " + model.kb.constants.name(c) + " is not finite");
}

// "search 12.1 s (retrieval 20.3 thread-s, 1.2M queries), index 0.4 s, ..."
std::string describe(const TimeSplit& t, double epoch_seconds) {
  char line[400];
  const double known = t.proof_search + t.index_maintenance + t.forward + t.backward + t.optimiser + t.recall_probes;
  std::snprintf(line, sizeof line,
                "  time: proof search %.1f s (fact retrieval %.1f thread-s, %.2fM queries, %lld widened), "
                "index maintenance %.1f s (%lld rows relinked), forward %.1f s, backward %.1f s, optimiser %.1f s, "
                "recall probes %.1f s, other %.1f s; %.0f goals/s\n",
                t.proof_search, t.index.search_seconds, 1e-6 * static_cast<double>(t.index.queries), t.index.widened,
                t.index_maintenance, t.index.rows_relinked, t.forward, t.backward, t.optimiser, t.recall_probes,
                std::max(0.0, epoch_seconds - known), static_cast<double>(t.goals) / std::max(1e-9, epoch_seconds));
  return line;
}

std::string rng_text(const std::mt19937_64& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

void restore_rng(std::mt19937_64& rng, const std::string& text) {
  std::istringstream in(text);
  in >> rng;
  if (!in) throw std::invalid_argument("training state: a random generator's state is damaged");
}

}  // namespace

const char* training_mask_name(TrainingMask mask) { return mask == TrainingMask::Pair ? "pair" : "fact"; }

bool training_mask_from_name(const std::string& name, TrainingMask* mask) {
  if (name != "fact" && name != "pair") return false;
  *mask = name == "pair" ? TrainingMask::Pair : TrainingMask::Fact;
  return true;
}

NonFiniteError::NonFiniteError(int epoch, std::size_t step, const std::string& what)
    : std::runtime_error("training stopped at epoch " + std::to_string(epoch) + ", step " + std::to_string(step) + ": " +
                         what + " (try a smaller --lr or --clip; the model was not saved)"),
      epoch(epoch),
      step(step) {}

void train(Model& model, const TrainOptions& options, std::ostream* progress,
           const std::function<void(EpochReport&)>& on_epoch) {
  train(model, options, progress, on_epoch, nullptr, nullptr);
}

void train(Model& model, const TrainOptions& o, std::ostream* progress,
           const std::function<void(EpochReport&)>& on_epoch, TrainingState* state, const std::atomic<bool>* stop) {
  if (o.epochs < 0 || o.batch <= 0 || o.negatives < 0 || o.recall_every < 0 || o.recall_sample < 1 || !(o.explore >= 0))
    throw std::invalid_argument("epochs must be >= 0, batch > 0, negatives >= 0, recall_every >= 0, recall_sample >= 1 "
                                "and explore >= 0");
  const std::size_t n = model.kb.facts.size();
  if (n == 0) throw std::invalid_argument("no training facts");
  ad::OptimizerOptions opt;
  opt.learning_rate = o.learning_rate;
  opt.l2 = o.l2;
  opt.clip = o.clip;
  auto optimizer = ad::make_optimizer(o.optimizer, opt);
  const std::unique_ptr<FactIndex> facts = make_fact_index(model, model.prover.index, o.index);
  // Recall is measured against exact search; an exact index needs no probe.
  const bool probe_recall = o.recall_every > 0 && !facts->exact() && model.prover.k_facts > 0;
  const std::unique_ptr<FactIndex> exact = probe_recall ? make_fact_index(model, "brute") : nullptr;
  Prover prover(model, *facts, model.prover);
  const auto pairs = o.mask == TrainingMask::Pair ? std::make_unique<FactsByConstants>(model.kb) : nullptr;
  std::vector<ad::Parameter*> parameters = {&model.predicates, &model.constants};
  if (has_rule_attention(model)) parameters.push_back(&model.rule_attention);
  ad::Tape tape;
  std::mt19937_64 rng(o.seed);
  std::mt19937_64 probe_rng(o.seed ^ 0x9e3779b97f4a7c15ull);  // never disturbs training's draws
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t batch = static_cast<std::size_t>(o.batch);
  const std::size_t steps_per_epoch = (n + batch - 1) / batch;
  // Resuming: the position, the random generators, the order and the
  // optimiser's moments as they were; the fact index was built above from
  // the embeddings, which are the model's own.
  int first_epoch = 1;
  std::size_t first_step = 0;
  double loss_sum = 0, recall_sum = 0;
  int probes = 0;
  if (state && state->started) {
    if (state->order.size() != n || state->steps_done >= steps_per_epoch)
      throw std::invalid_argument("training state: " + std::to_string(state->order.size()) + " facts and step " +
                                  std::to_string(state->steps_done) + ", but the KB has " + std::to_string(n) +
                                  " facts in steps of " + std::to_string(batch));
    first_epoch = state->epochs_done + 1;
    first_step = state->steps_done;
    loss_sum = state->loss_sum;
    recall_sum = state->recall_sum;
    probes = state->recall_probes;
    restore_rng(rng, state->rng);
    restore_rng(probe_rng, state->probe_rng);
    order = state->order;
    optimizer->set_state(state->optimizer);
  }
  // Saves the position after `epochs_done` epochs and `steps_done` steps.
  auto save_state = [&](int epochs_done, std::size_t steps_done) {
    if (!state) return;
    state->started = true;
    state->epochs_done = epochs_done;
    state->steps_done = steps_done;
    state->loss_sum = steps_done ? loss_sum : 0;
    state->recall_sum = steps_done ? recall_sum : 0;
    state->recall_probes = steps_done ? probes : 0;
    state->rng = rng_text(rng);
    state->probe_rng = rng_text(probe_rng);
    state->order = order;
    state->optimizer = optimizer->state();
  };
  const auto start = Clock::now();
  auto last_line = start;

  for (int epoch = first_epoch; epoch <= o.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    const bool resumed_epoch = epoch == first_epoch && first_step > 0;  // shuffled before the stop
    if (!resumed_epoch) {
      std::shuffle(order.begin(), order.end(), rng);
      loss_sum = recall_sum = 0;
      probes = 0;
    }
    TimeSplit time;
    facts->reset_stats();
    for (std::size_t step = resumed_epoch ? first_step : 0; step < steps_per_epoch; ++step) {
      const StepGoals s =
          draw_goals(model.kb, order, step * batch, std::min(n, (step + 1) * batch), o.negatives, pairs.get(), rng);
      const bool probe = probe_recall && step % static_cast<std::size_t>(o.recall_every) == 0;
      if (probe) facts->record_queries(4096);
      auto t = Clock::now();
      const ProofBatch proofs = prover.search(s.goals);
      lap(time.proof_search, t);
      if (probe) {
        std::vector<FactQuery> asked = facts->take_recorded();
        std::shuffle(asked.begin(), asked.end(), probe_rng);
        asked.resize(std::min(asked.size(), static_cast<std::size_t>(o.recall_sample)));
        recall_sum += recall_at_k(*facts, *exact, asked, 1);
        ++probes;
        lap(time.recall_probes, t);
      }
      tape.clear();
      const ad::Var scores = score_goals(tape, model, proofs, explore_temperature(o, epoch));
      ad::Var loss = ad::binary_cross_entropy(tape, scores, s.labels);
      if (model.prover.complex) {
        std::vector<Atom> atoms;
        for (const Goal& g : s.goals) atoms.push_back(g.atom);
        loss = ad::add(tape, loss, ad::binary_cross_entropy(tape, complex_scores(tape, model, atoms), s.labels));
      }
      lap(time.forward, t);
      const double step_loss = tape.scalar(loss);
      if (!std::isfinite(step_loss)) throw NonFiniteError(epoch, step + 1, "the loss is " + std::to_string(step_loss));
      tape.backward(loss);
      lap(time.backward, t);
      const MovedRows moved = rows_to_move(model);
      optimizer->step(parameters);
      if (has_rule_attention(model)) refresh_attended_slots(model);  // the slots follow their logits
      check_finite(model, moved, epoch, step + 1);
      lap(time.optimiser, t);
      facts->embeddings_moved(moved);
      if (exact) exact->embeddings_moved(moved);
      lap(time.index_maintenance, t);
      loss_sum += step_loss;
      time.goals += static_cast<long long>(s.goals.size());
      if (stop && stop->load() && step + 1 < steps_per_epoch) {  // at an epoch's end, stop after it
        save_state(epoch - 1, step + 1);
        if (state) state->stopped = true;
        if (progress) *progress << (o.progress_inline ? "\n" : "") << std::flush;
        return;
      }

      const bool inline_due = o.progress_inline && step % 10 == 0;
      const bool line_due = !o.progress_inline && seconds_since(last_line) >= o.progress_seconds;
      if (progress && (inline_due || line_due) && step + 1 < steps_per_epoch) {
        last_line = Clock::now();
        const double elapsed = seconds_since(start);
        const double done = (epoch - first_epoch) + static_cast<double>(step + 1) / static_cast<double>(steps_per_epoch);
        char line[200];
        std::snprintf(line, sizeof line, "%sepoch %d/%d  step %zu/%zu  %.1f steps/s  loss %.4f  eta %s%s",
                      o.progress_inline ? "\r" : "", epoch, o.epochs, step + 1, steps_per_epoch,
                      static_cast<double>(step + 1) / seconds_since(epoch_start), loss_sum / static_cast<double>(step + 1),
                      format_seconds(elapsed / done * (o.epochs - first_epoch + 1 - done)).c_str(),
                      o.progress_inline ? "   " : "\n");
        *progress << line << std::flush;
      }
    }
    EpochReport report;
    report.epoch = epoch;
    report.mean_loss = loss_sum / static_cast<double>(steps_per_epoch);
    report.seconds = seconds_since(epoch_start);
    report.recall_probes = probes;
    if (probes > 0) report.recall_at_1 = recall_sum / probes;
    time.index = facts->stats();
    if (o.profile) report.time = time;
    save_state(epoch, 0);
    if (on_epoch) on_epoch(report);
    if (progress) {
      const double elapsed = seconds_since(start);
      char line[240];
      std::snprintf(line, sizeof line, "%sepoch %d/%d  loss %.4f  %.2f s  elapsed %s  eta %s", o.progress_inline ? "\r" : "",
                    epoch, o.epochs, report.mean_loss, report.seconds, format_seconds(elapsed).c_str(),
                    format_seconds(elapsed / (epoch - first_epoch + 1) * (o.epochs - epoch)).c_str());
      *progress << line;
      if (probes > 0) *progress << "  recall@1 " << report.recall_at_1 << " (" << probes << " probes, " << facts->name() << ")";
      *progress << report.note << "\n";
      if (o.profile) *progress << describe(time, report.seconds);
      *progress << std::flush;
    }
    if (stop && stop->load() && epoch < o.epochs) {
      if (state) state->stopped = true;
      return;
    }
  }
}

}  // namespace ntp
