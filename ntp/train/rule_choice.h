// ntp/train/rule_choice.h: which mined rules to keep, chosen on dev facts by
// ranking them with each candidate set (eval/rule_ranking.h), as the other
// choices made on dev (combine_choice.h). Plain types only, for the API (ntp.h).
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/mine/mined_rule.h"

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ntp {

// A set of mined rules by name, e.g. {"chains", rules mined with two body atoms}.
using NamedRuleSet = std::pair<std::string, std::vector<MinedRule>>;

// The two sets a dev choice compares among rules mined with a constant:
// `mined` without its rules with a constant (named `name`), then all of it
// (`name` + " and constants"); `mined` alone when it has none.
std::vector<NamedRuleSet> with_and_without_constants(const std::string& name, const std::vector<MinedRule>& mined);

// The mean of `values` (reciprocal ranks, one a side), summed in side
// order: the same bits however the sides were gathered.
double mean_of(const std::vector<double>& values);

// How far the best set must rank dev above an earlier one to be kept instead
// of it: in standard errors of the mean paired difference of their
// reciprocal ranks.
constexpr double kClearMarginInStandardErrors = 2;

// Whether `challenger`'s reciprocal ranks (one a side) beat `holder`'s on
// the same sides by more than kClearMarginInStandardErrors standard errors
// of their mean difference: more than dev's noise. Throws
// std::invalid_argument unless both have the same size, at least 2.
bool clearly_better(const std::vector<double>& challenger, const std::vector<double>& holder);

// Of candidates given by their reciprocal ranks on the same dev sides, in
// order of preference: the first that the best (highest mean; the earlier
// on a tie) is not clearly_better than. Throws std::invalid_argument when
// there is none, or as clearly_better does.
std::size_t first_within_noise_of_best(const std::vector<std::vector<double>>& reciprocals);

struct RuleSetChoice {
  std::vector<MinedRule> kept;
  std::string description;  // "one-atom (dev mrr on 199 atoms: chains 0.7503, one-atom 0.8366)"
};

// Ranks `dev` (binary atoms; kb.facts, `dev` and `more_known` filtered as
// true, as evaluation filters) with each set and keeps the first, in the
// order given, that the best (highest MRR) is not clearly better than
// (clearly_better; the best itself if it beats every earlier one): the
// earlier sets are the ones to keep when dev cannot tell
// (mined_rules_choice.h gives the longer chains first, which predict what
// a sample of held-out facts seldom asks: on Countries S3 chains of two
// ranked its dev facts 0.0001 to 0.005 above chains of three, and its test
// countries, three hops from a region, 7 to 9 AUC-PR points lower). On
// Nations the one-atom rules rank better than a set with chains, whose
// weaker predictions outrank theirs; on UMLS the chains carry the ranking.
// Throws std::invalid_argument if `dev` or `sets` is empty. `progress`,
// when set, is called with (sides ranked, sides to rank) over all the sets,
// from one thread at a time.
RuleSetChoice choose_rule_set(const KnowledgeBase& kb, std::vector<NamedRuleSet> sets, const std::vector<Atom>& dev,
                              const std::vector<Atom>& more_known = {},
                              const std::function<void(std::size_t, std::size_t)>& progress = nullptr);

}  // namespace ntp
