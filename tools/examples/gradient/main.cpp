// tools/examples/gradient/main.cpp: one training step of a neural theorem
// prover, small enough to check by hand (docs/TUTORIAL.md works it through).
//
// Three facts about m32's family and one rule template, #1(X, Y) :- #2(Y, X),
// with 2-d embeddings chosen so that most distances are round numbers. The
// program proves the held-out fact parentOf(m32, m33), prints its proofs as
// `ntp prove` does, then runs the phases of train_step (ntp/train/step.cpp)
// for this one goal: search, score and loss on the autodiff tape, backward,
// update. It prints the gradient of the rows the best proof compared, beside
// central finite differences, and the score after one plain SGD update.
//
// It reads the library's internal headers (the tape, the prover, the fact
// index), which an installed ntp does not ship, so it is built in the source
// tree only, as the target example_gradient.
#include "autodiff/ops.h"
#include "autodiff/optim.h"
#include "ntp/index/make_fact_index.h"
#include "ntp/model/model.h"
#include "ntp/ntp.h"
#include "ntp/prover/prover.h"

#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>
#include <string>

namespace {

// The KB of docs/TUTORIAL.md: facts in .nl text, the template in .nlt text.
ntp::KnowledgeBase tiny_kb() {
  ntp::KnowledgeBase kb;
  std::istringstream facts("fatherOf(m32, m33).\nparentOf(m32, f34).\nchildOf(m33, m32).\n");
  for (const ntp::Atom& a : ntp::read_facts_nl(facts, "facts.nl", kb, ntp::NewSymbols::Allow)) kb.add_fact(a);
  std::istringstream templates("1  #1(X, Y) :- #2(Y, X).\n");
  kb.templates = ntp::read_templates_nlt(templates, "rules.nlt", kb);
  return kb;
}

// The model with the tutorial's embeddings in place of random ones. The
// predicate table holds the KB's three predicates, then the rule's two slots
// (the template's #1 and #2, which the model names #0 and #1 by their row).
ntp::Model tiny_model() {
  ntp::ProverConfig search;
  search.depth = 1;       // at most one rule application per proof
  search.k_facts = 3;     // every fact of this KB at each `or` step, as by hand
  search.complex = false;  // the proof score alone, no ComplEx beside it
  ntp::Model m = ntp::make_model(tiny_kb(), /*dim=*/2, search, /*seed=*/0);
  const auto predicate = [&](const char* name, double x, double y) {
    m.predicates.value.row(m.kb.predicates.find(name)) << x, y;
  };
  const auto constant = [&](const char* name, double x, double y) {
    m.constants.value.row(m.kb.constants.find(name)) << x, y;
  };
  predicate("fatherOf", 0.3, 0.4);
  predicate("parentOf", 0.0, 0.0);
  predicate("childOf", 1.2, 1.6);
  m.predicates.value.row(m.num_kb_predicates + 0) << 0.0, 0.2;  // #0, the rule's head
  m.predicates.value.row(m.num_kb_predicates + 1) << 1.2, 1.2;  // #1, its body
  constant("m32", 0.0, 0.0);
  constant("m33", 0.6, 0.8);
  constant("f34", 1.2, 1.6);
  return m;
}

// The goal's label: 1, a true fact (0 would train it as a corruption).
constexpr double kLabel = 1.0;

// The loss as a plain function of the embeddings, over the proof paths
// already found: the cross-entropy of the score s (max over paths of min
// over kernels), -log s for a true goal, -log(1 - s) for a false one.
double loss_of(const ntp::Model& model, const ntp::ProofBatch& proofs) {
  const double s = ntp::score_goals(model, proofs)[0];
  return -(kLabel * std::log(s) + (1 - kLabel) * std::log(1 - s));
}

// d loss / d table(row, col) by central differences, the paths held fixed
// (the search is not differentiated, so the gradient holds them fixed too).
double finite_difference(ntp::Model& model, ad::Parameter& table, int row, int col, const ntp::ProofBatch& proofs) {
  const double h = 1e-6, saved = table.value(row, col);
  table.value(row, col) = saved + h;
  const double up = loss_of(model, proofs);
  table.value(row, col) = saved - h;
  const double down = loss_of(model, proofs);
  table.value(row, col) = saved;
  return (up - down) / (2 * h);
}

// A value to print: a zero of either sign prints as +0.0000.
double tidy(double v) { return std::abs(v) < 5e-9 ? 0.0 : v; }

// One predicate row's gradient, as backward() left it, beside the estimate.
void print_gradient(ntp::Model& model, const char* name, int row, const ntp::ProofBatch& proofs) {
  const ad::Matrix& grad = model.predicates.grad;
  const double fd0 = finite_difference(model, model.predicates, row, 0, proofs);
  const double fd1 = finite_difference(model, model.predicates, row, 1, proofs);
  std::printf("  %-8s  (%+.4f, %+.4f)   finite differences (%+.4f, %+.4f)\n", name, tidy(grad(row, 0)),
              tidy(grad(row, 1)), tidy(fd0), tidy(fd1));
}

// The step: search, score and loss on the tape, backward, then one SGD
// update, as train_step does them for a batch (with Adam, clipping and L2).
void train_step_by_hand(ntp::Model& model, const ntp::Atom& goal) {
  const std::unique_ptr<ntp::FactIndex> facts = ntp::make_fact_index(model, model.prover.index);
  const ntp::Prover prover(model, *facts, model.prover);
  const ntp::ProofBatch proofs = prover.search({ntp::Goal{goal, {}}});  // symbolic: which kernels, no numbers

  ad::Tape tape;
  const ad::Var score = ntp::score_goals(tape, model, proofs);          // (1, 1): max over paths of min over kernels
  const ad::Var loss = ad::binary_cross_entropy(tape, score, {kLabel});
  tape.backward(loss);  // gradients land in model.predicates.grad and model.constants.grad
  std::printf("score %.4f  loss %.4f\n", tape.scalar(score), tape.scalar(loss));

  std::printf("rows with a gradient:");  // Parameter::touched, the rows the optimiser will move
  for (ad::Index row : model.predicates.touched) std::printf(" %s", model.predicate_row_name(static_cast<int>(row)).c_str());
  std::printf(" (%zu of %lld predicate rows, %zu of %lld constants)\n", model.predicates.touched.size(),
              static_cast<long long>(model.predicates.value.rows()), model.constants.touched.size(),
              static_cast<long long>(model.constants.value.rows()));
  std::printf("d loss / d row:\n");
  const int head = model.num_kb_predicates, body = head + 1, child_of = model.kb.predicates.find("childOf");
  print_gradient(model, "#1", body, proofs);
  print_gradient(model, "childOf", child_of, proofs);
  print_gradient(model, "#0", head, proofs);

  ad::OptimizerOptions sgd;
  sgd.learning_rate = 0.1;  // no L2, no clipping: row -= 0.1 * gradient
  ad::make_optimizer("sgd", sgd)->step({&model.predicates, &model.constants});
  const ad::Matrix& rows = model.predicates.value;
  std::printf("after one SGD step (learning rate 0.1): #1 = (%.4f, %.4f), childOf = (%.4f, %.4f)\n", rows(body, 0),
              rows(body, 1), rows(child_of, 0), rows(child_of, 1));
  std::printf("score %.4f  loss %.4f\n", ntp::score_goals(model, proofs)[0], loss_of(model, proofs));
}

}  // namespace

int main() {
  try {
    ntp::Model model = tiny_model();
    const ntp::Atom goal = ntp::parse_atom("parentOf(m32, m33)", model.kb);
    std::printf("%s\n", ntp::to_text(ntp::Reasoner(model).prove(goal, /*top_proofs=*/6)).c_str());
    train_step_by_hand(model, goal);
  } catch (const std::exception& e) {  // every ntp error says what and where
    std::fprintf(stderr, "example_gradient: %s\n", e.what());
    return 1;
  }
  return 0;
}
