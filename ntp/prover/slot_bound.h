// ntp/prover/slot_bound.h: how well could a goal be proven with *any*
// constant at one of its arguments? An upper bound for every constant at
// once, so that ranking and answering prove only the constants that can matter.
//
// Ranking p(s, ?) needs score(p(s, c)) for every constant c, but only the
// constants that could score at least the true triple's t change its rank.
// A proof's score is the min of its kernels, and c enters a proof only
// through kernels k(c, e) with the constants e it is unified with. Keep only
// the first of those, the proof's *site*, and the min can only grow:
//     score(p(s, c)) <= max over proofs P of min(rest(P), k(c, site(P))),
// rest(P) being the min of P's kernels that do not involve c. This holds for
// the proofs through every fact and rule, so it holds for the prover's own,
// which are some of them (the k nearest facts, the k_rules nearest rules).
//
// upper_bounds() finds the sites by a proof search over *all* facts and
// rules with the argument left open (the "slot"), pruning every partial proof
// whose rest falls below a threshold tau; facts are reached through their
// constants (a goal's ground argument a only meets facts whose constant there
// lies within the kernel's radius for tau of a: ConstantBalls), and the
// constants near each site get their bound. Without a ground argument an atom
// would meet every fact of its predicate; when an atom later in the proof has
// one, and the order of the two cannot change any kernel (each variable they
// share occurs at most twice, facts only), that atom goes first.
#pragma once

#include "ntp/index/constant_balls.h"
#include "ntp/index/fact_index.h"
#include "ntp/model/model.h"

#include <Eigen/Dense>

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ntp {

class SlotBounds {
 public:
  // Reads the model's embeddings now (kernel tables); `balls` must be built
  // on the same embeddings and outlive this object.
  SlotBounds(const Model& model, const ConstantBalls& balls, long long max_work = kMaxWork);

  // b (C): for every constant c, the score of `goal` with c at argument
  // `slot` (the goal's own argument there is ignored) is at most b[c] when
  // b[c] >= tau, and below tau when b[c] < tau. Nothing when the search gave
  // up: a small tau reaches almost every fact. It gives up after
  // `max_work` (at most the object's own; <= 0: the object's). Thread-safe.
  std::optional<std::vector<double>> upper_bounds(const Atom& goal, int slot, double tau, long long max_work = 0) const;

  // Each ground argument's squared distance to every constant (from the
  // float copy; the slot's and a query variable's rows empty): what
  // lower_bounds and sites read, computed once per goal.
  using ArgumentDistances = std::vector<std::vector<double>>;
  ArgumentDistances argument_distances(const Atom& goal, int slot) const;

  // l (C): for every constant c, the proof score of `goal` with c at
  // argument `slot` is at least l[c], *when the prover's facts are the
  // nearest by key distance* (an exact fact index; any k). The nearest fact
  // f* is no farther than any fact f, and every kernel of the proof through
  // f* is at least k(D(f*)) (each of its squared distances is a part of the
  // sum D), so l[c] = k(min_f D(goal_c, f)) over the facts f that hold c, or
  // one of c's listed nearest constants, at the slot. The same holds one
  // rule down for each rule the prover tries on the goal whose body is one
  // atom over the head's variables (p(X, Y) :- q(Y, X)): the sub-goal
  // q(c, s)'s nearest fact gives a proof of at least min(k(p, head), k(D)).
  // And two rules down the chains `p(U, V) :- q(U, Z), r(Z, V)` (either
  // atom's arguments either way round) whose first atom holds the goal's
  // other argument s: the prover proves q(s, Z) first, by the facts the
  // index gives it (`facts`, the prover's own), and each such fact f binds Z
  // to z; the nearest fact of r(z, c) then gives a proof of at least
  // min(k(p, head), k(D(f)), k(D)), D here over the facts holding z or one
  // of z's listed nearest constants where Z sits. A chain whose first atom holds the slot,
  // p(V, U) :- q(V, Z), r(Z, U), asks the index once per constant c; its
  // floor counts only where the answer is known without asking: when c's own
  // facts nearest q are nearer than any fact of another constant can be, the
  // index gives one of them, and the worst of them (with r(z, s)'s own facts
  // for the z it binds) is the floor.
  // One pass over the facts per route (the goal itself, each such rule, each
  // chain's first fact) and one over the lists; ranking counts the
  // corruptions whose floor already beats the true triple without proving
  // them. Thread-safe. `to_argument`: argument_distances(goal, slot).
  // Floors below `useful` may come out lower (0): what cannot reach it is
  // not looked for.
  std::vector<double> lower_bounds(const Atom& goal, int slot, const ArgumentDistances& to_argument,
                                   FactIndex& facts, double useful = 0) const;

  // The bound of upper_bounds for every constant at once, with no threshold
  // and no giving up, when every proof meets the slot at a fact constant
  // directly: each rule's body is one atom over its head's variables
  // (`p(X, Y) :- q(Y, X)`, `p(X, Y) :- q(X, Y)`) and the goal's other
  // arguments are constants. In two steps:
  //   sites(): one pass over the facts gives each constant e, as a possible
  //     site, the best rest of the proofs meeting it (once per goal);
  //   list_bounds(): b[c] = max over sites e of min(rest(e), k(c, e)), from
  //     c's listed nearest constants, every site beyond them counted at the
  //     list's last distance (looser than upper_bounds where c's list is
  //     short of its sites).
  // Both thread-safe.
  struct Sites {
    std::vector<double> radius;  // (C): R(rest(e)), the squared distance at which the kernel falls to rest(e)
    double nearest = 0;          // the least of them
  };
  // Nothing when the rules or the goal do not allow it.
  std::optional<Sites> sites(const Atom& goal, int slot, const ArgumentDistances& to_argument) const;
  // With `need` (C) given, the walk down c's list stops once the answer to
  // "can c reach need[c]?" is known: b[c] >= need[c] says it may (b[c] is then
  // not always the bound), b[c] < need[c] that c's score is surely below
  // need[c]. With `need` empty, b is the bound itself.
  std::vector<double> list_bounds(const Sites& sites, const std::vector<double>& need = {}) const;

  // The constants that share a fact with constant c (any predicate, any position).
  std::vector<int> fact_neighbours(int c) const;

  // Work (partial proofs, kernels, ball members) a search may do before it
  // gives up (the caller then tries a larger tau, or scores every constant:
  // slower, still exact).
  static constexpr long long kMaxWork = 4'000'000;

 private:
  struct Search;  // one goal's search (slot_bound.cpp)

  // The rule's body is one atom whose arguments are the head's variables,
  // each once.
  static bool one_atom_body(const Rule& rule);
  // Every rule's is (sites() applies).
  bool one_atom_bodies() const;
  // Where lower_bounds looks for a goal's proofs: the goal's own predicate
  // row, and one rule down each tried rule with a one-atom body: the row
  // its body asks for, the body position of each goal argument, and R(k(goal,
  // head)), the squared distance at which the kernel falls to the head's.
  struct FloorRoute {
    int row = 0;
    std::vector<int> where;
    double radius = 0;
  };
  std::vector<FloorRoute> floor_routes(int goal_row, int arity) const;
  // A chain rule the prover tries on a binary goal (lower_bounds), read for
  // the goal's slot: p(U, V) :- q(.., U, .., Z, ..), r(.., Z, .., V, ..),
  // V the head's variable at the slot.
  // With slot_first, the first atom holds V and the second U.
  struct ChainRoute {
    int first_row = 0, second_row = 0;  // the body atoms' predicate rows
    int head_in_first = 0;              // U's (V's) position in q; Z holds the other
    int link_in_second = 0;             // Z's position in r; V (U) holds the other
    bool slot_first = false;
    double radius = 0;                  // R(k(goal, head))
  };
  std::vector<ChainRoute> chain_routes(int goal_row, int slot) const;
  // Lowers at_slot (lower_bounds' array) by the proofs through each route
  // of `chains` (chain_routes) whose first atom holds U, leaving out those
  // farther than `limit`.
  void add_chain_floors(const std::vector<ChainRoute>& chains, const Atom& goal, int slot,
                        const ArgumentDistances& to_argument, FactIndex& facts, double limit,
                        std::vector<double>& at_slot) const;
  // One first fact's share: r(z, c) for every c, z = `link`, the first
  // step's own distance (with the head's) `radius`.
  void add_second_hop(const ChainRoute& route, int link, double radius, double limit,
                      std::vector<double>& at_slot) const;
  // (C): for every constant c, a squared distance D such that a proof of the
  // goal with c at the slot through a slot-first route of `chains` scores
  // at least k(D) (infinity: none known, or none nearer than `limit`).
  std::vector<double> slot_first_chain_distances(const std::vector<ChainRoute>& chains, const Atom& goal, int slot,
                                                 const ArgumentDistances& to_argument, double limit) const;
  // The same for one route and constant c: `nearest_predicate`, the least
  // squared distance of q's row to a KB predicate; `second` (C), r(z, s)'s
  // least key distance over z's own facts.
  double through_own_facts(const ChainRoute& route, int c, double nearest_predicate,
                           const std::vector<double>& second) const;
  // (KB predicate g, where) -> the best min of the predicate kernels over
  // the rule chains (one-atom bodies) that take a goal of this predicate row
  // and arity to the facts of g with its argument i at position where[i].
  using Routes = std::map<std::pair<int, std::vector<int>>, double>;
  Routes fact_routes(int predicate_row, int arity) const;

  // The facts of KB predicate g with constant e at argument `position`.
  const std::vector<int>& facts_at(int g, int position, int e) const;

  const Model& model_;
  const ConstantBalls& balls_;
  long long max_work_;
  Eigen::MatrixXd predicate_kernels_;              // (rows, rows): every predicate row against every row
  Eigen::MatrixXd predicate_squared_;              // (rows, rows): their squared distances
  std::vector<std::vector<int>> facts_of_;         // (P): fact ids of each KB predicate
  std::unordered_map<std::uint64_t, std::vector<int>> facts_by_constant_;  // key (g, position, e)
  std::vector<int> none_;
  // [i][c]: the binary facts holding constant c at argument i.
  std::vector<std::vector<int>> binary_facts_holding_[2];
  bool one_atom_bodies_ = false;
};

// The squared distance within which the kernel is at least tau (infinity
// when every distance is: tau at or below the kernel's floor).
double squared_radius_of_kernel(double tau);

}  // namespace ntp
