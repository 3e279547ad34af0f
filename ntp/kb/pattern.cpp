// ntp/kb/pattern.cpp: splitting and checking textual patterns (pattern.h).
#include "ntp/kb/pattern.h"

#include <cctype>

namespace ntp {
namespace {

bool is_separator(char c) { return c == ':' || c == ' ' || c == '\t'; }

bool is_placeholder(const std::string& word) {
  if (word.size() < 3 || word.front() != '[' || word.back() != ']') return false;
  for (std::size_t i = 1; i + 1 < word.size(); ++i)
    if (!std::isupper(static_cast<unsigned char>(word[i]))) return false;
  return true;
}

// The words of `text` with the byte offset each starts at; an empty word
// where two separators meet or one ends the text.
struct Word {
  std::string text;
  std::size_t at = 0;
};

std::vector<Word> split(const std::string& text) {
  std::vector<Word> words(1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_separator(text[i])) {
      words.push_back({"", i + 1});
      continue;
    }
    words.back().text += text[i];
  }
  return words;
}

}  // namespace

bool is_pattern(const std::string& predicate) {
  if (predicate.find('[') == std::string::npos) return false;  // the common case, without splitting
  for (const Word& w : split(predicate))
    if (is_placeholder(w.text)) return true;
  return false;
}

std::vector<std::string> pattern_words(const std::string& pattern) {
  std::vector<std::string> out;
  for (Word& w : split(pattern))
    if (!w.text.empty()) out.push_back(std::move(w.text));
  return out;
}

std::string pattern_problem(const std::string& pattern, std::size_t& at) {
  bool has_word = false;
  for (const Word& w : split(pattern)) {
    at = w.at;
    if (w.text.empty()) return "empty word in pattern '" + pattern + "' (expected words separated by one ':' or blank)";
    if (is_placeholder(w.text)) continue;
    if (w.text.find_first_of("[]") != std::string::npos)
      return "'" + w.text + "' in pattern '" + pattern +
             "' (expected brackets only around a placeholder such as [XXX])";
    has_word = true;
  }
  at = 0;
  if (!has_word) return "pattern '" + pattern + "' has no word besides its placeholders (expected a phrase)";
  return "";
}

}  // namespace ntp
