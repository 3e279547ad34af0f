// ntp/kb/pattern.h: textual patterns, predicates that are phrases. A fact
// stated in text, such as GNTP's mention
//     vietnam   [XXX]:is:a:neighbor:of:[YYY]   cambodia
// has for predicate the words around its two arguments, with placeholders
// (a bracketed upper-case word, [XXX] and [YYY]) saying where the subject
// and the object stand. Such a predicate is proven like any other; what it
// adds is its words, from which the model computes its embedding
// (model/mentions.h), so that two phrases sharing words start near each other
// and a phrase never seen in training is still understood.
//
// A predicate is a pattern when one of its words is a placeholder. Words are
// separated by ':' (GNTP's files) or by blanks; placeholders count as words.
#pragma once

#include <string>
#include <vector>

namespace ntp {

// True when `predicate` holds a placeholder word such as [XXX].
bool is_pattern(const std::string& predicate);

// The words of a pattern, placeholders included, in order:
// "[XXX]:is:adjacent:to:[YYY]" -> {"[XXX]", "is", "adjacent", "to", "[YYY]"}.
std::vector<std::string> pattern_words(const std::string& pattern);

// What is wrong with a pattern, "" when nothing is; `at` receives the byte
// offset of the fault. A pattern needs at least one word besides its
// placeholders, no empty word (two separators in a row, or one at an end),
// and brackets only as whole placeholders ("[XXX]", not "[xx" or "a[b]").
std::string pattern_problem(const std::string& pattern, std::size_t& at);

}  // namespace ntp
