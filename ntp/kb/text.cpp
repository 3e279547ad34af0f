// ntp/kb/text.cpp: atoms, rules, numbers and JSON as text (see text.h).
#include "ntp/kb/text.h"

#include "ntp/kb/lexer.h"

#include <charconv>
#include <cstdio>

namespace ntp {

std::string name_text(const std::string& name) {
  // Plain when the lexer reads it whole as one name: name characters, and
  // dots followed by one; a leading quote would open a quoted name.
  bool plain = !name.empty() && name.front() != '"';
  for (std::size_t i = 0; plain && i < name.size(); ++i)
    plain = lex::is_name_char(name[i]) || (name[i] == '.' && i + 1 < name.size() && lex::is_name_char(name[i + 1]));
  return plain ? name : "\"" + name + "\"";
}

std::string atom_text(const std::string& predicate, std::size_t arity,
                      const std::function<std::string(std::size_t)>& arg_name) {
  std::string s = name_text(predicate) + "(";
  for (std::size_t i = 0; i < arity; ++i) s += (i > 0 ? ", " : "") + arg_name(i);
  return s + ")";
}

std::string rule_text(const std::string& head, const std::vector<std::string>& body) {
  std::string s = head + " :-";
  for (std::size_t i = 0; i < body.size(); ++i) s += (i > 0 ? ", " : " ") + body[i];
  return s;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string format_exact(double v) {
  char buf[32];
  const std::to_chars_result end = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end.ptr);
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string json_string(const std::string& text) {
  std::string s = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20) {  // control characters as \u00XX
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
  }
  return s + "\"";
}

JsonObject& JsonObject::add_raw(const std::string& name, const std::string& json) {
  members_ += (members_.empty() ? "" : ",") + json_string(name) + ":" + json;
  return *this;
}
JsonObject& JsonObject::add(const std::string& name, double value) { return add_raw(name, format_exact(value)); }
std::string format_duration(double seconds) {
  char buf[32];
  const int total = static_cast<int>(seconds + 0.5);
  if (total >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", total / 3600, total / 60 % 60);
  else std::snprintf(buf, sizeof buf, "%dm%02ds", total / 60, total % 60);
  return buf;
}

JsonObject& JsonObject::add(const std::string& name, int value) { return add_raw(name, std::to_string(value)); }
JsonObject& JsonObject::add(const std::string& name, long long value) { return add_raw(name, std::to_string(value)); }
JsonObject& JsonObject::add(const std::string& name, const std::string& value) { return add_raw(name, json_string(value)); }
JsonObject& JsonObject::add(const std::string& name, const JsonObject& value) { return add_raw(name, value.text()); }

}  // namespace ntp
