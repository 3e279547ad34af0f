// ntp/kb/text.h: how the program writes what it shows: atoms "p(a, b)",
// rules "h :- b1, b2", numbers, and JSON strings and objects. Every printer
// (proof text, dot, JSON, logs, rule lists) goes through these.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ntp {

// A name as the .nl and .nlt readers read it back: as it is, or in double
// quotes when it holds blanks or punctuation, as a textual pattern does
// ("[XXX]:is:adjacent:to:[YYY]", kb/pattern.h).
std::string name_text(const std::string& name);
// "p(a, b)": the predicate's name (name_text), then each argument's name
// (arg_name(i) for i < arity), comma separated.
std::string atom_text(const std::string& predicate, std::size_t arity,
                      const std::function<std::string(std::size_t)>& arg_name);
// "head :- body1, body2", from atoms already written.
std::string rule_text(const std::string& head, const std::vector<std::string>& body);

// A number with up to six significant digits (printf's %.6g): text for
// reading and option defaults.
std::string format_number(double v);
// The shortest text that reads back as the same double (std::to_chars):
// numbers in JSON, so that a program reading them gets the model's own
// values ("0.1", "0.30000000000000004"). Infinities and NaN as "inf", "nan".
std::string format_exact(double v);
// A number with a fixed count of decimals (%.3f, ...): scores for reading.
std::string format_fixed(double v, int decimals);

// `text` as a JSON string: quoted, with JSON's escapes.
std::string json_string(const std::string& text);
// A duration for progress lines: "12m05s", or "1h02m" from an hour on.
std::string format_duration(double seconds);

// One JSON object written member by member, in the order added:
//   JsonObject o; o.add("mrr", 0.5).add("count", 12); o.text() == {"mrr":0.5,"count":12}
class JsonObject {
 public:
  JsonObject& add(const std::string& name, double value);  // format_exact
  JsonObject& add(const std::string& name, int value);
  JsonObject& add(const std::string& name, long long value);
  JsonObject& add(const std::string& name, const std::string& value);  // a JSON string
  JsonObject& add(const std::string& name, const JsonObject& value);
  JsonObject& add_raw(const std::string& name, const std::string& json);  // already JSON
  std::string text() const { return "{" + members_ + "}"; }

 private:
  std::string members_;
};

}  // namespace ntp
