// ntp/train.cpp: the training loop (see train.h).
#include "ntp/train.h"

#include "autodiff/optim.h"
#include "ntp/complex.h"
#include "ntp/prover.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <random>
#include <stdexcept>

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

}  // namespace

void train(Model& model, const TrainOptions& o, std::ostream* progress,
           const std::function<void(const EpochReport&)>& on_epoch) {
  if (o.epochs < 0 || o.batch <= 0 || o.negatives < 0)
    throw std::invalid_argument("epochs must be >= 0, batch > 0 and negatives >= 0");
  const std::size_t n = model.kb.facts.size();
  if (n == 0) throw std::invalid_argument("no training facts");
  ad::OptimizerOptions opt;
  opt.learning_rate = o.learning_rate;
  opt.l2 = o.l2;
  opt.clip = o.clip;
  auto optimizer = ad::make_optimizer(o.optimizer, opt);
  FactSelector selector(model, model.prover.index);
  Prover prover(model, selector, model.prover);
  ad::Tape tape;
  std::mt19937_64 rng(o.seed);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t steps_per_epoch = (n + static_cast<std::size_t>(o.batch) - 1) / static_cast<std::size_t>(o.batch);
  const auto start = Clock::now();
  const std::size_t refresh_every = static_cast<std::size_t>(
      o.refresh_every > 0 ? o.refresh_every : (selector.kind() == "table" ? 1 : 100));

  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    std::shuffle(order.begin(), order.end(), rng);
    double loss_sum = 0;
    for (std::size_t step = 0; step < steps_per_epoch; ++step) {
      if (step % refresh_every == 0) selector.refresh();
      std::vector<Goal> goals;
      std::vector<Atom> atoms;  // the goals' atoms, for ComplEx
      std::vector<double> labels;
      const std::size_t end = std::min(n, (step + 1) * static_cast<std::size_t>(o.batch));
      for (std::size_t i = step * static_cast<std::size_t>(o.batch); i < end; ++i) {
        const int f = static_cast<int>(order[i]);
        goals.push_back({model.kb.facts[order[i]], f});
        labels.push_back(1);
        for (int j = 0; j < o.negatives; ++j) {
          goals.push_back({corrupt(model.kb, model.kb.facts[order[i]], j, rng), -1});
          labels.push_back(0);
        }
      }
      const ProofBatch proofs = prover.search(goals);
      tape.clear();
      const ad::Var scores = score_goals(tape, model, proofs);
      ad::Var loss = ad::binary_cross_entropy(tape, scores, labels);
      if (model.prover.complex) {
        for (const Goal& g : goals) atoms.push_back(g.atom);
        loss = ad::add(tape, loss, ad::binary_cross_entropy(tape, complex_scores(tape, model, atoms), labels));
      }
      tape.backward(loss);
      optimizer->step({&model.predicates, &model.constants});
      loss_sum += tape.scalar(loss);

      if (progress && o.progress_inline && step % 10 == 0) {
        const double elapsed = seconds_since(start);
        const double done = (epoch - 1) + static_cast<double>(step + 1) / static_cast<double>(steps_per_epoch);
        *progress << "\repoch " << epoch << "/" << o.epochs << "  step " << step + 1 << "/" << steps_per_epoch
                  << "  loss " << loss_sum / static_cast<double>(step + 1) << "  eta "
                  << format_seconds(elapsed / done * (o.epochs - done)) << "   " << std::flush;
      }
    }
    EpochReport report{epoch, loss_sum / static_cast<double>(steps_per_epoch), seconds_since(epoch_start)};
    if (progress) {
      const double elapsed = seconds_since(start);
      char line[160];
      std::snprintf(line, sizeof line, "%sepoch %d/%d  loss %.4f  %.2f s  elapsed %s  eta %s\n",
                    o.progress_inline ? "\r" : "", epoch, o.epochs, report.mean_loss, report.seconds,
                    format_seconds(elapsed).c_str(), format_seconds(elapsed / epoch * (o.epochs - epoch)).c_str());
      *progress << line << std::flush;
    }
    if (on_epoch) on_epoch(report);
  }
}

}  // namespace ntp
