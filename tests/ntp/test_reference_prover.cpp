// ntp::Prover against the reference prover (reference_prover.h), an
// independent, exhaustive or/and/unify, on many random small KBs: scores,
// proof paths, best proofs and gradients (reference_prover_check.h says
// exactly what is compared), at depth 1 and 2, with every fact (k = 0:
// branch and bound, and explanations) and with k = the number of facts.
#include "reference_prover.h"
#include "reference_prover_cases.h"
#include "reference_prover_check.h"

#include "ntp/model/conditional.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <omp.h>
#include <random>

namespace {

// Depth 2 multiplies the proofs of depth 1 by themselves for every chained
// rule: its KBs are smaller.
reference::CaseSizes sizes_for_depth(int depth) {
  reference::CaseSizes sizes;
  if (depth == 2) {
    sizes.min_facts = 3;
    sizes.max_facts = 8;
    sizes.max_templates = 2;
    sizes.max_copies = 1;
  }
  return sizes;
}

// A model and goals drawn at random, redrawn until at least `min_goals`
// goals fit in a budget of proofs (reference_prover_cases.h), so that
// enumerating every proof, which both provers do, stays fast.
struct DrawnCase {
  reference::Case text;
  ntp::Model model;
  std::vector<ntp::Goal> goals;
};

template <class Draw>
DrawnCase draw_affordable_case(Draw& draw, int depth, std::uint64_t seed, int min_goals, double proof_budget) {
  DrawnCase c;
  for (int goals = 0; goals < min_goals;) {
    c.text = reference::draw_case(draw, sizes_for_depth(depth));
    c.model = reference::case_model(c.text, reference::draw_between(draw, 1, 4), seed);
    goals = reference::affordable_goals(c.model, depth, proof_budget, std::max(min_goals, depth == 1 ? 24 : 12));
    if (goals >= min_goals) c.goals = reference::draw_goals(draw, c.model, goals);
  }
  return c;
}

// Sets the OpenMP thread count for a scope. Searches of 32 goals and more
// are split across threads (Prover::search): one case in 100 has that many
// goals and runs on two threads, so that the split is checked on any
// machine. The rest run on one: on a busy machine, waiting for a second
// thread at every OpenMP region of the library's small calls costs far
// more than the calls.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadCount() { omp_set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

// What the cases covered, so that the test can tell they are not trivial.
struct Coverage {
  int goals = 0;
  int proven_by_rule = 0;  // goals whose best proof applies a rule first
  int gradients = 0;       // gradient checks of one goal's score
};

void count(const ntp::Model& model, const reference::Answers& answers, Coverage& coverage) {
  for (std::size_t g = 0; g < answers.proofs.size(); ++g) {
    ++coverage.goals;
    for (const reference::Proof& p : answers.proofs[g])
      if (p.steps.front().by_rule && reference::proof_score(model, p) == answers.best[g]) {
        ++coverage.proven_by_rule;
        break;
      }
  }
}

}  // namespace

TEST_CASE("the prover agrees with the reference prover on random small KBs") {
  constexpr int kCases = 1000;
  Coverage coverage;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 3; ++i) {
    std::mt19937 rng(static_cast<std::uint32_t>(i));
    auto draw = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint32_t>(n)); };
    const int depth = 1 + i % 2;
    const bool split = i % 100 == 0;
    DrawnCase c = draw_affordable_case(draw, depth, static_cast<std::uint64_t>(i), split ? 32 : 4, split ? 2400 : 600);
    const reference::Answers answers = reference::answer(c.model, depth, c.goals);
    count(c.model, answers, coverage);
    const ThreadCount threads(split ? 2 : 1);
    for (int k : {0, static_cast<int>(c.model.kb.facts.size())}) {
      ntp::ProverConfig config;
      config.depth = depth;
      config.k_facts = k;
      config.k_rules = draw(2) == 0 ? 0 : static_cast<int>(c.model.rules.size());  // all rules either way
      const std::string index = draw(2) == 0 ? "table" : "brute";
      const std::string error = reference::check_prover(c.model, c.goals, answers, config, index, &coverage.gradients);
      if (error.empty()) continue;
      ++failures;
      FAIL_CHECK("case " << i << ", depth " << depth << ", index " << index << ": " << error << "\nfacts:\n"
                         << c.text.facts << "templates:\n" << c.text.templates);
    }
  }
  MESSAGE(coverage.goals << " goals, " << coverage.proven_by_rule << " best proven by a rule, " << coverage.gradients
                         << " gradient checks");
  // The cases exercise what they are meant to: rules win proofs, and most
  // gradients are checked (twice per goal: k = 0 and k = all facts).
  if (failures > 0) return;  // the cases stopped early
  CHECK(coverage.proven_by_rule > coverage.goals / 10);
  CHECK(coverage.gradients > coverage.goals);
}

TEST_CASE("the prover agrees with the reference prover on conditional rules") {
  // As above, with every slot-headed rule conditional (conditional.h): no
  // head kernel, body slots as rows conditioned on the goal, at depth 2 also
  // on conditioned rows. Random weights, so that every conditioned row
  // differs. Gradients through conditioned rows are checked against finite
  // differences in test_conditional.cpp instead.
  constexpr int kCases = 300;
  int goals = 0, conditional_wins = 0, failures = 0;
  for (int i = 0; i < kCases && failures < 3; ++i) {
    std::mt19937 rng(static_cast<std::uint32_t>(10'000 + i));
    auto draw = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint32_t>(n)); };
    const int depth = 1 + i % 2;
    DrawnCase c = draw_affordable_case(draw, depth, static_cast<std::uint64_t>(i), 4, 600);
    c.model.prover.depth = depth;
    ntp::add_conditioning(c.model, i / 2 % 2 == 0 ? ntp::Reformulator::Linear : ntp::Reformulator::Attentive,
                          static_cast<std::uint64_t>(i));
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    for (ad::Index e = 0; e < c.model.conditioning.weights.value.size(); ++e)
      c.model.conditioning.weights.value.data()[e] = u(rng);
    ntp::refresh_conditioned_rows(c.model);
    const reference::Answers answers = reference::answer(c.model, depth, c.goals);
    for (std::size_t g = 0; g < answers.proofs.size(); ++g, ++goals)
      for (const reference::Proof& p : answers.proofs[g])
        if (p.steps.front().by_rule && c.model.rules[static_cast<std::size_t>(p.steps.front().id)].conditional &&
            reference::proof_score(c.model, p) == answers.best[g]) {
          ++conditional_wins;
          break;
        }
    for (int k : {0, static_cast<int>(c.model.kb.facts.size())}) {
      ntp::ProverConfig config;
      config.depth = depth;
      config.k_facts = k;
      const std::string error = reference::check_prover(c.model, c.goals, answers, config, "table", nullptr);
      if (error.empty()) continue;
      ++failures;
      FAIL_CHECK("case " << i << ", depth " << depth << ": " << error << "\nfacts:\n" << c.text.facts << "templates:\n"
                         << c.text.templates);
    }
  }
  MESSAGE(goals << " goals, " << conditional_wins << " best proven by a conditional rule");
  CHECK(conditional_wins > goals / 10);
}

TEST_CASE("a variable bound to another free variable stays bound, whatever its number") {
  // The rule's head has no variable, so X is the proof's first variable, and
  // it is still free when the q rule's U is unified with it. Proving q(X, Y)
  // through t(a, b) must make X = a, so that r(X, Y) is r(a, b), which only
  // matches r(c, b) softly. Losing the binding U = X would let X match c too,
  // and prove p(d, d) exactly.
  ntp::Model model = reference::case_model({"t(a, b).\nr(c, b).\nq(e, e).\np(d, e).\n",
                                            "1 p(d, d) :- q(X, Y), r(X, Y).\n1 q(U, W) :- t(U, W).\n"},
                                           2, 1);
  ntp::ProverConfig config;
  config.depth = 2;
  config.k_facts = 0;
  const int p = model.kb.predicates.find("p"), d = model.kb.constants.find("d");
  const std::vector<ntp::Goal> goals{{ntp::Atom{p, {d, d}}, -1}};
  const reference::Answers answers = reference::answer(model, config.depth, goals);
  REQUIRE(answers.best[0] < 0.9);  // no exact proof exists
  int gradients = 0;
  CHECK(reference::check_prover(model, goals, answers, config, "table", &gradients) == "");
}
