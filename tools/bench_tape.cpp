// tools/bench_tape.cpp: how much the autodiff tape costs on NTP's scoring
// graph, against a hand-written fused loop doing the same arithmetic.
//
// The graph, for B goals (p, s, o), each with k retrieved facts, in dimension d:
//   goal rows    gather predicate/subject/object embeddings      3 x (B, d)
//   broadcast    gather_rows, each goal repeated k times          3 x (B*k, d)
//   fact rows    gather the k facts' embeddings per position      3 x (B*k, d)
//   kernels      rbf_kernel per position (or sub, l2_norm_rows,
//                scale, exp composed)                             3 x (B*k, 1)
//   proof score  min over the 3 positions, max over the k facts   (B, 1)
//   loss         binary_cross_entropy against random 0/1 labels   (1, 1)
// then backward into the two Parameters (predicates, entities). A third
// variant replaces the two (B*k, d) gathers and the kernel of each position
// by rbf_kernel_rows, which reads the goal rows and the facts' distinct rows
// through indices and never stores the (B*k, d) matrices. The fused
// loop computes the same loss and the same Parameter gradients (into dense
// arrays) without a tape; the program checks that both agree, then prints
// the median over --reps of each timing, the tape and the fused loop taking
// turns in every rep so that both see the same machine load (and the fused
// loop alone, for reference). Both run on one thread. It leaves
// out retrieval itself: the k facts per goal are drawn at random.
#include "autodiff/ops.h"

#include <cxxopts.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using ad::Index;
using ad::Matrix;
using ad::Scalar;
using Clock = std::chrono::steady_clock;

struct Problem {
  Index goals = 0, k = 0, dim = 0;
  ad::Parameter predicates, entities;               // (P, d), (E, d)
  std::vector<Index> goal_rows[3];                  // (B) per position: p, s, o
  std::vector<Index> fact_rows[3];                  // (B*k) per position
  std::vector<Index> repeat;                        // (B*k): b repeated k times
  std::vector<Scalar> labels;                       // (B)
  // Scratch for the rbf_kernel_rows variant: the distinct fact rows of a
  // position, and each fact's place among them.
  std::vector<Index> distinct, place, slot_of_row;
};

Problem make_problem(Index goals, Index k, Index dim, Index num_predicates, Index num_entities,
                     Index num_facts, unsigned seed) {
  std::mt19937_64 rng(seed);
  Problem pr;
  pr.goals = goals;
  pr.k = k;
  pr.dim = dim;
  std::uniform_real_distribution<Scalar> init(-0.1, 0.1);
  pr.predicates = ad::Parameter("predicates", num_predicates, dim);
  pr.entities = ad::Parameter("entities", num_entities, dim);
  for (Index e = 0; e < pr.predicates.value.size(); ++e) pr.predicates.value.data()[e] = init(rng);
  for (Index e = 0; e < pr.entities.value.size(); ++e) pr.entities.value.data()[e] = init(rng);
  std::uniform_int_distribution<Index> pred(0, num_predicates - 1), ent(0, num_entities - 1);
  std::vector<Index> facts[3];
  for (Index f = 0; f < num_facts; ++f) {
    facts[0].push_back(pred(rng));
    facts[1].push_back(ent(rng));
    facts[2].push_back(ent(rng));
  }
  std::uniform_int_distribution<Index> fact(0, num_facts - 1);
  std::bernoulli_distribution coin(0.5);
  for (Index b = 0; b < goals; ++b) {
    pr.goal_rows[0].push_back(pred(rng));
    pr.goal_rows[1].push_back(ent(rng));
    pr.goal_rows[2].push_back(ent(rng));
    pr.labels.push_back(coin(rng) ? 1 : 0);
    for (Index j = 0; j < k; ++j) {
      const Index f = fact(rng);
      for (int pos = 0; pos < 3; ++pos) pr.fact_rows[pos].push_back(facts[pos][f]);
      pr.repeat.push_back(b);
    }
  }
  return pr;
}

// ---- the tape version ------------------------------------------------------------

enum class Variant { kRbfKernel, kComposed, kRbfKernelRows };
const char* name_of(Variant v) {
  return v == Variant::kRbfKernel ? "rbf_kernel" : v == Variant::kComposed ? "composed"
                                                                            : "kernel_rows";
}

// The kernel of one position: 3 x (B*k, d) -> (B*k, 1), or straight from the
// (B, d) goal rows and the table for rbf_kernel_rows.
ad::Var position_kernel(ad::Tape& t, Problem& pr, int pos, Variant variant) {
  ad::Parameter& table = pos == 0 ? pr.predicates : pr.entities;
  const ad::Var goal = ad::gather(t, table, pr.goal_rows[pos]);            // (B, d)
  if (variant == Variant::kRbfKernelRows) {
    // Gather each distinct fact row once: (U, d), U <= min(B*k, rows).
    pr.slot_of_row.assign(static_cast<std::size_t>(table.value.rows()), -1);
    pr.distinct.clear();
    pr.place.clear();
    for (Index row : pr.fact_rows[pos]) {
      Index& slot = pr.slot_of_row[static_cast<std::size_t>(row)];
      if (slot < 0) {
        slot = static_cast<Index>(pr.distinct.size());
        pr.distinct.push_back(row);
      }
      pr.place.push_back(slot);
    }
    const ad::Var facts = ad::gather(t, table, pr.distinct);               // (U, d)
    return ad::rbf_kernel_rows(t, goal, pr.repeat, facts, pr.place);       // (B*k, 1)
  }
  const ad::Var goal_k = ad::gather_rows(t, goal, pr.repeat);              // (B*k, d)
  const ad::Var facts = ad::gather(t, table, pr.fact_rows[pos]);           // (B*k, d)
  if (variant == Variant::kRbfKernel) return ad::rbf_kernel(t, goal_k, facts);
  return ad::exp(t, ad::scale(t, ad::l2_norm_rows(t, ad::sub(t, goal_k, facts)), -1));
}

ad::Var tape_forward(ad::Tape& t, Problem& pr, Variant variant) {
  t.clear();
  pr.predicates.clear_grad();
  pr.entities.clear_grad();
  std::vector<ad::Var> kernels;
  for (int pos = 0; pos < 3; ++pos) kernels.push_back(position_kernel(t, pr, pos, variant));
  const ad::Var proof = ad::min(t, kernels);                               // (B*k, 1)
  const ad::Var score = ad::segment_max(t, proof, pr.k);                   // (B, 1)
  return ad::binary_cross_entropy(t, score, pr.labels);                    // (1, 1)
}

// ---- the fused loop ----------------------------------------------------------------

struct Fused {
  Matrix grad_predicates, grad_entities;  // dense (P, d), (E, d)
  std::vector<Index> touched[2];          // rows written last time, zeroed next time
  std::vector<Index> best_j;              // (B) arg-max fact per goal
  std::vector<int> best_pos;              // (B) arg-min position of that fact
  std::vector<Scalar> score, factor;      // (B) proof score, k/r (0 if clipped)
  Scalar loss = 0;
};

Scalar clip_squared(Scalar s) {
  return std::min(std::max(s, ad::kMinSquaredDistance), ad::kMaxSquaredDistance);
}

void fused_step(const Problem& pr, Fused& fz) {
  const Matrix* tables[3] = {&pr.predicates.value, &pr.entities.value, &pr.entities.value};
  Matrix* grads[3] = {&fz.grad_predicates, &fz.grad_entities, &fz.grad_entities};
  for (int t = 0; t < 2; ++t) {
    Matrix& g = t == 0 ? fz.grad_predicates : fz.grad_entities;
    for (Index r : fz.touched[t]) g.row(r).setZero();
    fz.touched[t].clear();
  }
  const Index B = pr.goals, k = pr.k;
  fz.best_j.resize(static_cast<std::size_t>(B));
  fz.best_pos.resize(static_cast<std::size_t>(B));
  fz.score.resize(static_cast<std::size_t>(B));
  fz.factor.resize(static_cast<std::size_t>(B));
  // Forward: the best proof of each goal, and the loss.
  for (Index b = 0; b < B; ++b) {
    Scalar best = -1, best_factor = 0;
    Index best_j = 0;
    int best_pos = 0;
    for (Index j = 0; j < k; ++j) {
      const Index i = b * k + j;
      Scalar proof = 0, proof_factor = 0;
      int proof_pos = 0;
      for (int pos = 0; pos < 3; ++pos) {
        const auto& table = *tables[pos];
        const Scalar s = (table.row(pr.goal_rows[pos][static_cast<std::size_t>(b)]) -
                          table.row(pr.fact_rows[pos][static_cast<std::size_t>(i)]))
                             .squaredNorm();
        const Scalar r = std::sqrt(clip_squared(s));
        const Scalar kv = std::exp(-r);
        if (pos == 0 || kv < proof) {
          proof = kv;
          proof_pos = pos;
          const bool clipped = s < ad::kMinSquaredDistance || s > ad::kMaxSquaredDistance;
          proof_factor = clipped ? 0 : kv / r;
        }
      }
      if (j == 0 || proof > best) {
        best = proof;
        best_j = j;
        best_pos = proof_pos;
        best_factor = proof_factor;
      }
    }
    const auto ub = static_cast<std::size_t>(b);
    fz.score[ub] = best;
    fz.best_j[ub] = best_j;
    fz.best_pos[ub] = best_pos;
    fz.factor[ub] = best_factor;
  }
  Scalar total = 0;
  for (Index b = 0; b < B; ++b) {
    const Scalar p = fz.score[static_cast<std::size_t>(b)];
    const Scalar y = pr.labels[static_cast<std::size_t>(b)];
    total += y * std::log(std::max(p, ad::kMinProbability)) +
             (1 - y) * std::log(std::max(1 - p, ad::kMinProbability));
  }
  fz.loss = -total / static_cast<Scalar>(B);
  // Backward: only the winning (fact, position) of each goal gets a gradient.
  for (Index b = 0; b < B; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const Scalar p = fz.score[ub], y = pr.labels[ub];
    Scalar dp = 0;
    if (p >= ad::kMinProbability && p <= 1) dp -= y / p;
    if (1 - p >= ad::kMinProbability && 1 - p <= 1) dp += (1 - y) / (1 - p);
    const Scalar f = dp / static_cast<Scalar>(B) * fz.factor[ub];
    if (f == 0) continue;
    const int pos = fz.best_pos[ub];
    const Index goal = pr.goal_rows[pos][ub];
    const Index fact = pr.fact_rows[pos][static_cast<std::size_t>(b * k + fz.best_j[ub])];
    const auto& table = *tables[pos];
    Matrix& g = *grads[pos];
    g.row(goal) -= f * (table.row(goal) - table.row(fact));
    g.row(fact) += f * (table.row(goal) - table.row(fact));
    fz.touched[pos == 0 ? 0 : 1].push_back(goal);
    fz.touched[pos == 0 ? 0 : 1].push_back(fact);
  }
}

// ---- checks and timing -----------------------------------------------------------

// A checksum that notices a gradient landing in the wrong row or column.
Scalar checksum(const Matrix& g) {
  Scalar sum = 0;
  for (Index r = 0; r < g.rows(); ++r)
    for (Index c = 0; c < g.cols(); ++c) sum += g(r, c) * static_cast<Scalar>((r * 31 + c) % 7 - 3);
  return sum;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Timings {
  double forward, backward, total, fused;
};

// Alternates the tape and the fused loop in every rep, so that both see the
// same machine load (this bench often shares its cores).
Timings time_both(ad::Tape& t, Problem& pr, Variant variant, Fused& fz, int reps) {
  std::vector<double> fwd, bwd, tot, fused;
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0 warms up the tape's storage
    const auto start = Clock::now();
    const ad::Var loss = tape_forward(t, pr, variant);
    const double f = ms_since(start);
    const auto mid = Clock::now();
    t.backward(loss);
    const double b = ms_since(mid);
    const auto fused_start = Clock::now();
    fused_step(pr, fz);
    const double fu = ms_since(fused_start);
    if (rep == 0) continue;
    fwd.push_back(f);
    bwd.push_back(b);
    tot.push_back(f + b);
    fused.push_back(fu);
  }
  return {median(fwd), median(bwd), median(tot), median(fused)};
}

// Whether the tape's last loss and gradients match the fused loop's.
bool agree(const char* what, Scalar tape_loss, const Problem& pr, const Fused& fz) {
  const Scalar cs_tape = checksum(pr.predicates.grad) + checksum(pr.entities.grad);
  const Scalar cs_fused = checksum(fz.grad_predicates) + checksum(fz.grad_entities);
  const Scalar max_diff =
      std::max((pr.predicates.grad - fz.grad_predicates).cwiseAbs().maxCoeff(),
               (pr.entities.grad - fz.grad_entities).cwiseAbs().maxCoeff());
  const Scalar scale = std::max(pr.predicates.grad.cwiseAbs().maxCoeff(),
                                pr.entities.grad.cwiseAbs().maxCoeff());
  const bool ok = std::abs(tape_loss - fz.loss) <= 1e-12 * std::abs(fz.loss) &&
                  max_diff <= 1e-10 * scale && scale > 0;
  std::printf("check %-11s loss tape %.15g fused %.15g | grad checksum tape %.12g fused %.12g"
              " | max |diff| %.3g -> %s\n",
              what, tape_loss, fz.loss, cs_tape, cs_fused, max_diff, ok ? "agree" : "DIFFER");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  cxxopts::Options options("bench_tape",
                           "Times forward+backward of NTP's scoring graph on the autodiff tape "
                           "against a hand-written fused loop (medians over --reps).");
  options.add_options()
      ("goals", "B, goals per batch", cxxopts::value<Index>()->default_value("1000"))
      ("k", "facts retrieved per goal (also --k)", cxxopts::value<Index>()->default_value("10"))
      ("dim", "embedding dimension d", cxxopts::value<Index>()->default_value("100"))
      ("reps", "timed repetitions (after one warm-up)", cxxopts::value<int>()->default_value("20"))
      ("predicates", "rows of the predicate table", cxxopts::value<Index>()->default_value("100"))
      ("entities", "rows of the entity table", cxxopts::value<Index>()->default_value("10000"))
      ("facts", "facts to draw the retrieved ones from", cxxopts::value<Index>()->default_value("50000"))
      ("seed", "random seed", cxxopts::value<unsigned>()->default_value("1"))
      ("h,help", "print this help");
  // cxxopts wants two characters after "--", so "--k" is passed on as "-k".
  std::vector<std::string> words(argv, argv + argc);
  for (std::string& w : words) {
    if (w == "--k") w = "-k";
    else if (w.rfind("--k=", 0) == 0) w = "-k" + w.substr(4);
  }
  std::vector<char*> word_ptrs;
  for (std::string& w : words) word_ptrs.push_back(w.data());
  cxxopts::ParseResult args;
  try {
    args = options.parse(static_cast<int>(word_ptrs.size()), word_ptrs.data());
  } catch (const std::exception& e) {
    std::cerr << "bench_tape: " << e.what() << "\n" << options.help() << "\n";
    return 2;
  }
  if (args.count("help")) {
    std::cout << options.help() << "\n";
    return 0;
  }
  const Index goals = args["goals"].as<Index>(), k = args["k"].as<Index>();
  const Index dim = args["dim"].as<Index>();
  const int reps = args["reps"].as<int>();
  if (goals < 1 || k < 1 || dim < 1 || reps < 1 || args["predicates"].as<Index>() < 1 ||
      args["entities"].as<Index>() < 1 || args["facts"].as<Index>() < 1) {
    std::cerr << "bench_tape: --goals, --k, --dim, --reps, --predicates, --entities and --facts"
                 " must be >= 1\n";
    return 2;
  }

  Problem pr = make_problem(goals, k, dim, args["predicates"].as<Index>(),
                            args["entities"].as<Index>(), args["facts"].as<Index>(),
                            args["seed"].as<unsigned>());
  Fused fz;
  fz.grad_predicates.setZero(pr.predicates.value.rows(), dim);
  fz.grad_entities.setZero(pr.entities.value.rows(), dim);

  std::printf("NTP scoring graph: B=%ld goals, k=%ld, d=%ld, %ld predicates, %ld entities; "
              "one thread; median of %d reps\n",
              static_cast<long>(goals), static_cast<long>(k), static_cast<long>(dim),
              static_cast<long>(pr.predicates.value.rows()),
              static_cast<long>(pr.entities.value.rows()), reps);
  // The fused loop alone, hot in cache, for reference: alternating with the
  // tape (below) it runs with the tables partly evicted.
  std::vector<double> alone;
  for (int rep = 0; rep <= reps; ++rep) {
    const auto start = Clock::now();
    fused_step(pr, fz);
    if (rep > 0) alone.push_back(ms_since(start));
  }
  const double fused_alone = median(alone);
  // What just writing the six (B*k, d) matrices of the gather_rows/gather form
  // costs on this machine: a floor for that form's forward pass.
  std::vector<Matrix> copies(6, Matrix(goals * k, dim));
  const Matrix source = Matrix::Constant(goals * k, dim, 0.5);
  std::vector<double> copy_ms;
  for (int rep = 0; rep <= reps; ++rep) {
    const auto start = Clock::now();
    for (Matrix& m : copies) m = source;
    if (rep > 0) copy_ms.push_back(ms_since(start));
  }
  std::printf("fused loop alone: total %.3f ms; copying 6 x (B*k, d) doubles: %.3f ms\n",
              fused_alone, median(copy_ms));
  bool ok = true;
  ad::Tape tape;
  for (Variant variant : {Variant::kRbfKernel, Variant::kComposed, Variant::kRbfKernelRows}) {
    const char* name = name_of(variant);
    const Timings t = time_both(tape, pr, variant, fz, reps);
    ok &= agree(name, tape.scalar(tape.last()), pr, fz);
    std::printf("%-11s (%zu nodes) tape forward %7.3f ms  backward %7.3f ms  total %7.3f ms | "
                "fused total %7.3f ms | tape/fused %.2f (%.2f against the fused loop alone)\n",
                name, tape.size(), t.forward, t.backward, t.total, t.fused, t.total / t.fused,
                t.total / fused_alone);
  }
  return ok ? 0 : 1;
}
