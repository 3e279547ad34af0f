// ntp/prover/slot_bound.cpp: the open-argument proof search (see slot_bound.h).
#include "ntp/prover/slot_bound.h"

#include "autodiff/ops.h"
#include "ntp/model/conditional.h"
#include "ntp/prover/proof_state.h"
#include "ntp/prover/prover.h"
#include "ntp/prover/rule_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace ntp {

namespace {

// The open argument among the terms: a constant not known yet.
constexpr int kSlot = std::numeric_limits<int>::max();

// A partial proof with the slot open: what is left to prove, the bindings,
// the min of the kernels not involving the slot, and the slot's site.
struct Partial {
  std::vector<PendingAtom> stack;  // front = next atom to prove
  std::vector<int> binding;        // (variables): a term, or kUnbound
  double rest = 1;
  int site = -1;                   // the first fact constant the slot met; -1: none yet
};

int deref(const Partial& s, int term) {
  while (is_var(term)) {
    const int bound = s.binding[static_cast<std::size_t>(var_of(term))];
    if (bound == kUnbound) return term;
    term = bound;
  }
  return term;
}

// Argument positions fact_neighbours looks at (facts of more arguments are rare).
constexpr int kMaxArity = 8;

bool is_ground_constant(int term) { return !is_var(term) && term != kSlot; }

// Through a rule whose body is one atom over its head's variables: where the
// goal's arguments, at head positions `where`, sit in the body (the head's
// variable at each position moves to the body position holding it).
std::vector<int> moved_into_body(const Rule& rule, std::vector<int> where) {
  const auto& body = rule.body[0].args;
  for (int& w : where) {
    const int variable = rule.head.args[static_cast<std::size_t>(w)].id;
    w = static_cast<int>(std::find_if(body.begin(), body.end(), [&](const Term& t) { return t.id == variable; }) -
                         body.begin());
  }
  return where;
}

// The position of the one argument of `atom` that is variable `variable`;
// -1 when none is, or more than one.
int only_position(const RuleAtom& atom, int variable) {
  int found = -1;
  for (std::size_t i = 0; i < atom.args.size(); ++i) {
    if (!atom.args[i].is_variable || atom.args[i].id != variable) continue;
    if (found >= 0) return -1;
    found = static_cast<int>(i);
  }
  return found;
}

std::uint64_t position_key(int g, int position, int e) {
  return (static_cast<std::uint64_t>(g) << 36) | (static_cast<std::uint64_t>(position) << 32) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(e));
}

}  // namespace

double squared_radius_of_kernel(double tau) {
  if (tau <= ad::rbf_of_squared_distance(ad::kMaxSquaredDistance)) return std::numeric_limits<double>::infinity();
  const double distance = -std::log(tau);
  return distance * distance;
}

struct SlotBounds::Search {
  const SlotBounds& bounds;
  double tau;
  double squared_radius;
  long long max_work;                     // the work after which it gives up
  std::unordered_map<int, double> sites;  // site constant -> best rest of the proofs meeting it
  double anywhere = 0;                    // best rest of the proofs in which the slot met no fact constant
  long long work = 0;  // partial proofs, kernels and ball members so far
  bool gave_up = false;

  // At least the kernel of constants a and b: from the float distance,
  // shrunk by more than its rounding error. Counted as work.
  double constant_kernel(int a, int b) {
    ++work;
    const double squared = static_cast<double>(bounds.balls_.squared(a, b));
    return ad::rbf_of_squared_distance(std::max(0.0, squared * (1 - 1e-4) - 1e-6));
  }

  void balls_within(int c, std::vector<int>& out) {
    work += bounds.balls_.within(c, squared_radius, out);
  }

  // unify_terms of proof_state.cpp, with the slot: its first fact constant
  // becomes the site, later ones are not compared (the bound only grows).
  void unify(Partial& s, int x, int y) {
    x = deref(s, x);
    y = deref(s, y);
    if (is_var(x)) {
      if (x != y) s.binding[static_cast<std::size_t>(var_of(x))] = y;
    } else if (is_var(y)) {
      s.binding[static_cast<std::size_t>(var_of(y))] = x;
    } else if (x == kSlot || y == kSlot) {
      if (s.site < 0 && x != y) s.site = x == kSlot ? y : x;
    } else {
      s.rest = std::min(s.rest, constant_kernel(x, y));
    }
  }

  void prove(Partial s) {
    if (gave_up || ++work > max_work) {
      gave_up = true;
      return;
    }
    if (s.stack.empty()) {
      if (s.site < 0) anywhere = std::max(anywhere, s.rest);
      else sites[s.site] = std::max(sites[s.site], s.rest);
      return;
    }
    const auto at = s.stack.begin() + static_cast<std::ptrdiff_t>(next_atom(s));
    const PendingAtom atom = *at;
    s.stack.erase(at);
    by_facts(s, atom);
    if (atom.depth_left > 0) by_rules(s, atom);
  }

  // The atom proven next: the first, unless it has no ground constant while a
  // later one has and proving that one first cannot change any kernel: the
  // atoms up to it are proven by facts only, and each of their unbound
  // variables occurs at most twice in the stack (so it meets the same fact
  // constants, in the other order; the kernel is symmetric).
  std::size_t next_atom(const Partial& s) const {
    auto has_ground = [&](const PendingAtom& a) {
      return std::any_of(a.args.begin(), a.args.end(), [&](int t) { return is_ground_constant(deref(s, t)); });
    };
    std::size_t j = 0;
    for (; j < s.stack.size(); ++j) {
      if (s.stack[j].depth_left > 0) return 0;
      if (has_ground(s.stack[j])) break;
    }
    if (j == 0 || j == s.stack.size()) return 0;
    std::unordered_map<int, int> occurrences;
    for (const PendingAtom& a : s.stack)
      for (int t : a.args)
        if (is_var(deref(s, t))) ++occurrences[deref(s, t)];
    for (std::size_t i = 0; i <= j; ++i)
      for (int t : s.stack[i].args)
        if (is_var(deref(s, t)) && occurrences[deref(s, t)] > 2) return 0;
    return j;
  }

  void by_facts(const Partial& s, const PendingAtom& atom) {
    int ground = -1;
    for (std::size_t i = 0; i < atom.args.size() && ground < 0; ++i)
      if (is_ground_constant(deref(s, atom.args[i]))) ground = static_cast<int>(i);
    std::vector<int> near;  // constants near the ground argument's, found once
    bool near_found = false;
    for (int g = 0; g < bounds.model_.num_kb_predicates; ++g) {
      const double kp = bounds.predicate_kernels_(atom.predicate_row, g);
      if (std::min(s.rest, kp) < tau) continue;
      if (ground < 0) {
        for (int f : bounds.facts_of_[static_cast<std::size_t>(g)]) try_fact(s, atom, f, kp);
        continue;
      }
      if (!near_found) {
        balls_within(deref(s, atom.args[static_cast<std::size_t>(ground)]), near);
        near_found = true;
      }
      for (int e : near)
        for (int f : bounds.facts_at(g, ground, e)) try_fact(s, atom, f, kp);
    }
  }

  void try_fact(const Partial& s, const PendingAtom& atom, int f, double predicate_kernel) {
    const Atom& fact = bounds.model_.kb.facts[static_cast<std::size_t>(f)];
    if (fact.args.size() != atom.args.size()) return;
    Partial child = s;
    child.rest = std::min(child.rest, predicate_kernel);
    for (std::size_t i = 0; i < atom.args.size() && child.rest >= tau; ++i) unify(child, atom.args[i], fact.args[i]);
    if (child.rest >= tau) prove(std::move(child));
  }

  // apply_rule of proof_state.cpp, pruned by tau.
  void by_rules(const Partial& s, const PendingAtom& atom) {
    for (const Rule& rule : bounds.model_.rules) {
      if (rule.head.args.size() != atom.args.size()) continue;
      const double kh = rule.conditional ? 1.0 : bounds.predicate_kernels_(atom.predicate_row, rule.head.predicate.id);
      if (std::min(s.rest, kh) < tau) continue;
      Partial child = s;
      child.rest = std::min(child.rest, kh);
      const int offset = static_cast<int>(child.binding.size());
      child.binding.resize(child.binding.size() + static_cast<std::size_t>(rule.num_variables), kUnbound);
      auto rename = [&](const Term& t) { return t.is_variable ? var_term(offset + t.id) : t.id; };
      for (std::size_t i = 0; i < atom.args.size() && child.rest >= tau; ++i)
        unify(child, rename(rule.head.args[i]), atom.args[i]);
      if (child.rest < tau) continue;
      std::vector<PendingAtom> body;
      for (std::size_t i = 0; i < rule.body.size(); ++i) {
        PendingAtom p{body_row(bounds.model_, rule, i, atom.predicate_row), {}, atom.depth_left - 1};
        for (const Term& t : rule.body[i].args) p.args.push_back(rename(t));
        body.push_back(std::move(p));
      }
      child.stack.insert(child.stack.begin(), body.begin(), body.end());
      prove(std::move(child));
    }
  }
};

SlotBounds::SlotBounds(const Model& model, const ConstantBalls& balls, long long max_work)
    : model_(model), balls_(balls), max_work_(max_work) {
  const int rows = static_cast<int>(model.predicates.value.rows());
  predicate_kernels_.resize(rows, rows);
  predicate_squared_.resize(rows, rows);
  for (int a = 0; a < rows; ++a)
    for (int b = 0; b < rows; ++b) {
      predicate_squared_(a, b) = squared_distance(model, {Table::Predicate, a, b});
      predicate_kernels_(a, b) = ad::rbf_of_squared_distance(predicate_squared_(a, b));
    }
  one_atom_bodies_ = one_atom_bodies();
  facts_of_.resize(static_cast<std::size_t>(model.num_kb_predicates));
  for (std::size_t f = 0; f < model.kb.facts.size(); ++f) {
    const Atom& fact = model.kb.facts[f];
    facts_of_[static_cast<std::size_t>(fact.predicate)].push_back(static_cast<int>(f));
    for (std::size_t i = 0; i < fact.args.size(); ++i)
      facts_by_constant_[position_key(fact.predicate, static_cast<int>(i), fact.args[i])].push_back(static_cast<int>(f));
  }
  for (auto& holding : binary_facts_holding_) holding.resize(static_cast<std::size_t>(model.kb.constants.size()));
  for (std::size_t f = 0; f < model.kb.facts.size(); ++f) {
    const Atom& fact = model.kb.facts[f];
    if (fact.args.size() != 2) continue;
    for (std::size_t i = 0; i < 2; ++i)
      binary_facts_holding_[i][static_cast<std::size_t>(fact.args[i])].push_back(static_cast<int>(f));
  }
}

const std::vector<int>& SlotBounds::facts_at(int g, int position, int e) const {
  const auto it = facts_by_constant_.find(position_key(g, position, e));
  return it == facts_by_constant_.end() ? none_ : it->second;
}

std::vector<int> SlotBounds::fact_neighbours(int c) const {
  std::vector<int> out;
  for (int g = 0; g < model_.num_kb_predicates; ++g)
    for (int position = 0; position < kMaxArity; ++position)
      for (int f : facts_at(g, position, c))
        for (int other : model_.kb.facts[static_cast<std::size_t>(f)].args)
          if (other != c) out.push_back(other);
  return out;
}

SlotBounds::ArgumentDistances SlotBounds::argument_distances(const Atom& goal, int slot) const {
  const std::size_t constants = static_cast<std::size_t>(balls_.size());
  ArgumentDistances to_argument(goal.args.size());
  for (std::size_t i = 0; i < goal.args.size(); ++i) {
    if (static_cast<int>(i) == slot || goal.args[i] < 0) continue;
    to_argument[i].resize(constants);
    for (std::size_t e = 0; e < constants; ++e)
      to_argument[i][e] = balls_.squared(goal.args[i], static_cast<int>(e));
  }
  return to_argument;
}

std::vector<SlotBounds::FloorRoute> SlotBounds::floor_routes(int goal_row, int arity) const {
  std::vector<int> identity(static_cast<std::size_t>(arity));
  for (int i = 0; i < arity; ++i) identity[static_cast<std::size_t>(i)] = i;
  std::vector<FloorRoute> routes = {{goal_row, identity, 0.0}};
  if (model_.prover.depth < 1) return routes;
  for (int r : nearest_rules(model_, goal_row, arity, model_.prover.k_rules)) {
    const Rule& rule = model_.rules[static_cast<std::size_t>(r)];
    if (!one_atom_body(rule)) continue;
    const double head = rule.conditional ? 1.0 : predicate_kernels_(goal_row, rule.head.predicate.id);
    const double radius = squared_radius_of_kernel(head);
    if (std::isinf(radius)) continue;  // the head's kernel is at its floor: no proof through it can help
    routes.push_back({body_row(model_, rule, 0, goal_row), moved_into_body(rule, identity), radius});
  }
  return routes;
}

std::vector<double> SlotBounds::lower_bounds(const Atom& goal, int slot, const ArgumentDistances& to_argument,
                                             FactIndex& facts, double useful) const {
  const std::size_t constants = static_cast<std::size_t>(balls_.size());
  constexpr double kFar = std::numeric_limits<double>::infinity();
  // A proof farther than `limit` scores below `useful`: not looked for.
  const double limit = useful > 0 ? squared_radius_of_kernel(useful) : kFar;
  // at_slot[e]: over the routes and the facts f that hold e where the slot
  // lands, the least max(R(route's head kernel), D without the slot's term).
  // A proof through a route and f scores at least k of that max plus the
  // slot's own term (max(R, a) + d >= max(R, a + d)), so every route can
  // share one array and one pass over the lists.
  std::vector<double> at_slot(constants, kFar);
  for (const FloorRoute& route : floor_routes(goal.predicate, static_cast<int>(goal.args.size()))) {
    for (int g = 0; g < model_.num_kb_predicates; ++g) {
      const double predicate = predicate_squared_(route.row, g);
      if (std::max(route.radius, predicate) >= limit) continue;
      for (int f : facts_of_[static_cast<std::size_t>(g)]) {
        const Atom& fact = model_.kb.facts[static_cast<std::size_t>(f)];
        if (fact.args.size() != goal.args.size()) continue;
        double partial = predicate;
        for (std::size_t i = 0; i < fact.args.size(); ++i)
          if (!to_argument[i].empty())
            partial += to_argument[i][static_cast<std::size_t>(fact.args[static_cast<std::size_t>(route.where[i])])];
        const int site = fact.args[static_cast<std::size_t>(route.where[static_cast<std::size_t>(slot)])];
        double& best = at_slot[static_cast<std::size_t>(site)];
        best = std::min(best, std::max(route.radius, partial));
      }
    }
  }
  const std::vector<ChainRoute> chains = chain_routes(goal.predicate, slot);
  add_chain_floors(chains, goal, slot, to_argument, facts, limit, at_slot);
  const std::vector<double> own = slot_first_chain_distances(chains, goal, slot, to_argument, limit);
  std::vector<double> floor(constants, 0.0);
  for (std::size_t c = 0; c < constants; ++c) {
    const int* near = balls_.listed_ids(static_cast<int>(c));
    const float* squared = balls_.listed_squared(static_cast<int>(c));
    double nearest = std::min(at_slot[c], own[c]);
    for (int j = 0; j < balls_.listed(); ++j)
      nearest = std::min(nearest, at_slot[static_cast<std::size_t>(near[j])] + static_cast<double>(squared[j]));
    // Float parts: widened by more than their rounding, so the kernel only shrinks.
    if (nearest < kFar) floor[c] = ad::rbf_of_squared_distance(nearest * (1 + 1e-4) + 1e-6);
  }
  return floor;
}

std::vector<SlotBounds::ChainRoute> SlotBounds::chain_routes(int goal_row, int slot) const {
  std::vector<ChainRoute> routes;
  if (model_.prover.depth < 1) return routes;
  for (int r : nearest_rules(model_, goal_row, 2, model_.prover.k_rules)) {
    const Rule& rule = model_.rules[static_cast<std::size_t>(r)];
    if (rule.body.size() != 2 || rule.body[0].args.size() != 2 || rule.body[1].args.size() != 2) continue;
    const Term& v = rule.head.args[static_cast<std::size_t>(slot)];
    const Term& u = rule.head.args[static_cast<std::size_t>(1 - slot)];
    if (!u.is_variable || !v.is_variable || u.id == v.id) continue;
    // q holds one head variable (U, else V) and a variable Z that is
    // neither; r holds Z and the other head variable.
    const bool slot_first = only_position(rule.body[0], u.id) < 0;
    const Term& in_first = slot_first ? v : u;
    const Term& in_second = slot_first ? u : v;
    const int head_in_first = only_position(rule.body[0], in_first.id);
    if (head_in_first < 0) continue;
    const Term& z = rule.body[0].args[static_cast<std::size_t>(1 - head_in_first)];
    if (!z.is_variable || z.id == u.id || z.id == v.id) continue;
    const int z_in_second = only_position(rule.body[1], z.id);
    if (z_in_second < 0 || only_position(rule.body[1], in_second.id) != 1 - z_in_second) continue;
    const double head = rule.conditional ? 1.0 : predicate_kernels_(goal_row, rule.head.predicate.id);
    const double radius = squared_radius_of_kernel(head);
    if (std::isinf(radius)) continue;  // no proof through it can help
    routes.push_back({body_row(model_, rule, 0, goal_row), body_row(model_, rule, 1, goal_row), head_in_first,
                      z_in_second, slot_first, radius});
  }
  return routes;
}

void SlotBounds::add_chain_floors(const std::vector<ChainRoute>& chains, const Atom& goal, int slot,
                                  const ArgumentDistances& to_argument, FactIndex& facts, double limit,
                                  std::vector<double>& at_slot) const {
  const int other = 1 - slot;
  if (goal.args.size() != 2 || to_argument[static_cast<std::size_t>(other)].empty()) return;
  const std::vector<double>& to_ground = to_argument[static_cast<std::size_t>(other)];
  // The facts the prover's first `or` step tries on q(s, Z), an open query:
  // exhaustive search tries every fact, so any of them will do.
  const ProverConfig& config = model_.prover;
  const int k = config.k_facts > 0 ? std::max(config.k_open, config.k_facts) : std::max(config.k_open, 1);
  for (const ChainRoute& route : chains) {
    if (route.slot_first || route.radius >= limit) continue;
    FactQuery first{route.first_row, {-1, -1}, {}};
    first.args[static_cast<std::size_t>(route.head_in_first)] = goal.args[static_cast<std::size_t>(other)];
    const std::vector<std::vector<int>> found = facts.nearest({first}, k);
    for (int f : found[0]) {
      const Atom& hop = model_.kb.facts[static_cast<std::size_t>(f)];  // binary, as the query
      const int ground = hop.args[static_cast<std::size_t>(route.head_in_first)];
      // The proof's own first step: the min of its two kernels, each known.
      const double radius = std::max({route.radius, predicate_squared_(route.first_row, hop.predicate),
                                      to_ground[static_cast<std::size_t>(ground)]});
      if (radius < limit)
        add_second_hop(route, hop.args[static_cast<std::size_t>(1 - route.head_in_first)], radius, limit, at_slot);
    }
  }
}

void SlotBounds::add_second_hop(const ChainRoute& route, int link, double radius, double limit,
                                std::vector<double>& at_slot) const {
  // r(z, c) for every c at once, as the goal's own route, through the facts
  // holding z or one of z's listed neighbours e where Z sits: the nearest
  // fact of r(z, c) is no farther than any of them (d(z, e) counted).
  // Facts farther from z are left out, which only lowers the floor.
  const std::size_t at_link = static_cast<std::size_t>(route.link_in_second);
  auto through = [&](int e, double to_e) {
    for (int f : binary_facts_holding_[at_link][static_cast<std::size_t>(e)]) {
      const Atom& fact = model_.kb.facts[static_cast<std::size_t>(f)];
      const double partial = predicate_squared_(route.second_row, fact.predicate) + to_e;
      if (partial >= limit) continue;
      double& best = at_slot[static_cast<std::size_t>(fact.args[1 - at_link])];
      best = std::min(best, std::max(radius, partial));
    }
  };
  through(link, 0.0);
  const int* near = balls_.listed_ids(link);
  const float* squared = balls_.listed_squared(link);
  for (int j = 0; j < balls_.listed() && static_cast<double>(squared[j]) < limit; ++j)
    if (near[j] != link) through(near[j], static_cast<double>(squared[j]));
}

std::vector<double> SlotBounds::slot_first_chain_distances(const std::vector<ChainRoute>& chains, const Atom& goal,
                                                           int slot, const ArgumentDistances& to_argument,
                                                           double limit) const {
  const std::size_t constants = static_cast<std::size_t>(balls_.size());
  constexpr double kFar = std::numeric_limits<double>::infinity();
  std::vector<double> out(constants, kFar);
  const int other = 1 - slot;
  if (goal.args.size() != 2 || to_argument[static_cast<std::size_t>(other)].empty()) return out;
  const std::vector<double>& to_ground = to_argument[static_cast<std::size_t>(other)];
  for (const ChainRoute& route : chains) {
    if (!route.slot_first || route.radius >= limit) continue;
    std::vector<double> second(constants, kFar);  // r(z, s) through z's own facts
    const std::size_t at_link = static_cast<std::size_t>(route.link_in_second);
    for (int g = 0; g < model_.num_kb_predicates; ++g) {
      const double predicate = predicate_squared_(route.second_row, g);
      if (predicate >= limit) continue;
      for (int f : facts_of_[static_cast<std::size_t>(g)]) {
        const Atom& fact = model_.kb.facts[static_cast<std::size_t>(f)];
        if (fact.args.size() != 2) continue;
        double& best = second[static_cast<std::size_t>(fact.args[at_link])];
        best = std::min(best, predicate + to_ground[static_cast<std::size_t>(fact.args[1 - at_link])]);
      }
    }
    double nearest_predicate = kFar;
    for (int g = 0; g < model_.num_kb_predicates; ++g)
      nearest_predicate = std::min(nearest_predicate, predicate_squared_(route.first_row, g));
    for (std::size_t c = 0; c < constants; ++c)
      out[c] = std::min(out[c], through_own_facts(route, static_cast<int>(c), nearest_predicate, second));
  }
  return out;
}

double SlotBounds::through_own_facts(const ChainRoute& route, int c, double nearest_predicate,
                                     const std::vector<double>& second) const {
  constexpr double kFar = std::numeric_limits<double>::infinity();
  const std::size_t at = static_cast<std::size_t>(route.head_in_first);
  const std::vector<int>& own = binary_facts_holding_[at][static_cast<std::size_t>(c)];  // c where V sits
  double least = kFar;  // q(c, Z)'s key distance to c's nearest own fact
  for (int f : own) least = std::min(least, predicate_squared_(route.first_row, model_.kb.facts[static_cast<std::size_t>(f)].predicate));
  // Any fact holding another constant e there is at least as far as the
  // nearest predicate plus e's distance to c: c's nearest other constant.
  double other = kFar;
  for (int j = 0; j < balls_.listed() && std::isinf(other); ++j)
    if (balls_.listed_ids(c)[j] != c) other = static_cast<double>(balls_.listed_squared(c)[j]);
  // Both sides widened by more than the index's float rounding.
  const double tied = least * (1 + 1e-4) + 1e-6;
  if (std::isinf(least) || !(tied < (nearest_predicate + other) * (1 - 1e-4) - 1e-6)) return kFar;
  // The index gives one of c's facts within `tied`: the worst of them.
  double worst = tied;
  for (int f : own) {
    const Atom& fact = model_.kb.facts[static_cast<std::size_t>(f)];
    if (predicate_squared_(route.first_row, fact.predicate) <= tied)
      worst = std::max(worst, second[static_cast<std::size_t>(fact.args[1 - at])]);  // r(z, s) through its z
  }
  return std::max(route.radius, worst);
}

bool SlotBounds::one_atom_body(const Rule& rule) {
  if (rule.body.size() != 1 || rule.body[0].args.size() != rule.head.args.size()) return false;
  std::vector<int> in_head;
  for (const Term& t : rule.head.args) {
    if (!t.is_variable || std::count(in_head.begin(), in_head.end(), t.id)) return false;
    in_head.push_back(t.id);
  }
  std::vector<int> in_body;
  for (const Term& t : rule.body[0].args) {
    if (!t.is_variable || std::count(in_body.begin(), in_body.end(), t.id) ||
        !std::count(in_head.begin(), in_head.end(), t.id))
      return false;
    in_body.push_back(t.id);
  }
  return true;
}

bool SlotBounds::one_atom_bodies() const {
  return std::all_of(model_.rules.begin(), model_.rules.end(), [](const Rule& rule) { return one_atom_body(rule); });
}

SlotBounds::Routes SlotBounds::fact_routes(int predicate_row, int arity) const {
  // The atoms a proof can reach, level by level: (predicate row, where the
  // goal's arguments sit in it) with the best kernel so far. Merging equal
  // states keeps each level within rows x argument orders.
  using State = std::pair<int, std::vector<int>>;
  std::map<State, double> level;
  std::vector<int> identity(static_cast<std::size_t>(arity));
  for (int i = 0; i < arity; ++i) identity[static_cast<std::size_t>(i)] = i;
  level[{predicate_row, identity}] = 1.0;
  Routes routes;
  for (int depth_left = model_.prover.depth;; --depth_left) {
    std::map<State, double> next;
    for (const auto& [state, kernel] : level) {
      const auto& [row, where] = state;
      for (int g = 0; g < model_.num_kb_predicates; ++g) {
        double& best = routes[{g, where}];
        best = std::max(best, std::min(kernel, predicate_kernels_(row, g)));
      }
      if (depth_left == 0) continue;
      for (const Rule& rule : model_.rules) {
        if (rule.head.args.size() != where.size()) continue;
        const double k = rule.conditional ? kernel : std::min(kernel, predicate_kernels_(row, rule.head.predicate.id));
        double& best = next[{body_row(model_, rule, 0, row), moved_into_body(rule, where)}];
        best = std::max(best, k);
      }
    }
    if (next.empty()) return routes;
    level = std::move(next);
  }
}

namespace {

// A constant distance from the float copy, shrunk by more than its rounding,
// so that every kernel from it is at least the exact one.
double at_most(double squared) { return std::max(0.0, squared * (1 - 1e-4) - 1e-6); }

}  // namespace

std::optional<SlotBounds::Sites> SlotBounds::sites(const Atom& goal, int slot,
                                                    const ArgumentDistances& to_argument) const {
  if (!one_atom_bodies_) return std::nullopt;
  for (std::size_t i = 0; i < goal.args.size(); ++i)
    if (static_cast<int>(i) != slot && goal.args[i] < 0) return std::nullopt;  // a query variable
  const std::size_t arity = goal.args.size();
  // In squared distances, min(k(a), k(b)) = k(max(a, b)): a proof through a
  // fact is bounded by k of the largest of its route's R(kernel) and its
  // other arguments' distances; site e keeps the least over its facts.
  Sites out;
  out.radius.assign(static_cast<std::size_t>(balls_.size()), std::numeric_limits<double>::infinity());
  for (const auto& [route, kernel] : fact_routes(goal.predicate, static_cast<int>(arity))) {
    const double route_radius = squared_radius_of_kernel(kernel);
    const std::vector<int>& where = route.second;
    for (int f : facts_of_[static_cast<std::size_t>(route.first)]) {
      const Atom& fact = model_.kb.facts[static_cast<std::size_t>(f)];
      if (fact.args.size() != arity) continue;
      double r = route_radius;
      for (std::size_t i = 0; i < arity; ++i)
        if (static_cast<int>(i) != slot)
          r = std::max(r, at_most(to_argument[i][static_cast<std::size_t>(fact.args[static_cast<std::size_t>(where[i])])]));
      const int site = fact.args[static_cast<std::size_t>(where[static_cast<std::size_t>(slot)])];
      double& at = out.radius[static_cast<std::size_t>(site)];
      at = std::min(at, r);
    }
  }
  out.nearest = std::numeric_limits<double>::infinity();
  for (double r : out.radius) out.nearest = std::min(out.nearest, r);
  return out;
}

std::vector<double> SlotBounds::list_bounds(const Sites& sites, const std::vector<double>& need) const {
  const std::size_t constants = sites.radius.size();
  const int listed = balls_.listed();
  std::vector<double> bound(constants);
  for (std::size_t c = 0; c < constants; ++c) {
    const int* ids = balls_.listed_ids(static_cast<int>(c));
    const float* squared = balls_.listed_squared(static_cast<int>(c));
    // The bound is k(least): the least max(R(e), d²(c, e)) over the sites.
    // With a need, the walk ends once least is within its radius (yes) or
    // the next site lies beyond it (no later site can help).
    if (!need.empty() && need[c] >= 1) {  // no kernel reaches 1 (the clipped distance is > 0)
      bound[c] = 0;
      continue;
    }
    const double radius = need.empty() ? -1.0 : squared_radius_of_kernel(need[c]);
    double least = sites.radius[c];
    // Every site not listed is at least as far as the last one listed (the
    // lists are exact nearest constants, as ConstantBalls::within assumes).
    if (listed > 0 && listed < balls_.size())
      least = std::min(least, std::max(sites.nearest, at_most(squared[listed - 1])));
    for (int j = 0; j < listed && least > radius; ++j) {
      const double d = at_most(squared[j]);
      if (d >= least || (radius >= 0 && d > radius)) break;  // nearest first: no later site does better
      least = std::min(least, std::max(sites.radius[static_cast<std::size_t>(ids[j])], d));
    }
    bound[c] = ad::rbf_of_squared_distance(least);
    // Within the radius means the need is reached; k(radius) may round a
    // last bit below it.
    if (least <= radius) bound[c] = std::max(bound[c], need[c]);
  }
  return bound;
}

std::optional<std::vector<double>> SlotBounds::upper_bounds(const Atom& goal, int slot, double tau,
                                                             long long max_work) const {
  const std::size_t constants = static_cast<std::size_t>(balls_.size());
  if (tau <= 0) return std::vector<double>(constants, 1.0);
  max_work = max_work > 0 ? std::min(max_work, max_work_) : max_work_;
  Search search{*this, tau, squared_radius_of_kernel(tau), max_work, {}, 0, 0, false};  // NOLINT: aggregate
  Partial start;
  PendingAtom a{goal.predicate, {}, model_.prover.depth};
  for (std::size_t i = 0; i < goal.args.size(); ++i) {
    if (static_cast<int>(i) == slot) a.args.push_back(kSlot);
    else if (goal.args[i] >= 0) a.args.push_back(goal.args[i]);
    else {  // a query variable
      a.args.push_back(var_term(static_cast<int>(start.binding.size())));
      start.binding.push_back(kUnbound);
    }
  }
  start.stack.push_back(std::move(a));
  search.prove(std::move(start));
  if (search.gave_up) return std::nullopt;

  std::vector<double> bound(constants, search.anywhere >= tau ? search.anywhere : 0.0);
  std::vector<int> near;
  for (const auto& [e, rest] : search.sites) {
    near.clear();
    search.balls_within(e, near);
    if (search.work > max_work) return std::nullopt;
    for (int c : near) {
      const double v = std::min(rest, search.constant_kernel(c, e));
      if (v >= tau) bound[static_cast<std::size_t>(c)] = std::max(bound[static_cast<std::size_t>(c)], v);
    }
  }
  return bound;
}

}  // namespace ntp
