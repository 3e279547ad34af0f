// ntp/proof_format.cpp: explanations and answers as JSON and as Graphviz
// `dot` (see ntp.h). Written by hand: two small formats, no dependency.
#include "ntp/ntp.h"

#include <cstdio>
#include <map>
#include <tuple>

namespace ntp {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Scores in the picture: three decimals are enough to read.
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string bindings_json(const std::vector<Binding>& bindings) {
  std::string s = "{";
  for (std::size_t i = 0; i < bindings.size(); ++i)
    s += (i ? "," : "") + json_string(bindings[i].variable) + ":" + json_string(bindings[i].value);
  return s + "}";
}

std::string step_json(const Step& st) {
  std::string s = "{\"depth\":" + std::to_string(st.depth) + ",\"goal\":" + json_string(st.goal) + ",\"by\":\"" +
                  (st.by_rule ? "rule" : "fact") + "\",\"id\":" + std::to_string(st.id) + ",\"used\":" + json_string(st.used);
  if (st.by_rule) s += ",\"reading\":" + json_string(st.reading) + ",\"confidence\":" + number(st.confidence);
  s += ",\"substitution\":" + bindings_json(st.substitution) + ",\"matches\":[";
  for (std::size_t i = 0; i < st.matches.size(); ++i)
    s += std::string(i ? "," : "") + "{\"goal\":" + json_string(st.matches[i].goal_symbol) + ",\"matched\":" +
         json_string(st.matches[i].matched_symbol) + ",\"score\":" + number(st.matches[i].score) + "}";
  return s + "],\"score\":" + number(st.score) + "}";
}

std::string proof_json(const Proof& p) {
  std::string s = "{\"score\":" + number(p.score) + ",\"steps\":[";
  for (std::size_t i = 0; i < p.steps.size(); ++i) s += (i ? "," : "") + step_json(p.steps[i]);
  return s + "]}";
}

// `text` inside a dot string: quotes and backslashes escaped.
std::string dot_escape(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s;
}

std::string dot_label(const Step& st) {
  std::string label = dot_escape(st.goal) + "\\n" + (st.by_rule ? "rule " : "fact ") + dot_escape(st.used);
  if (st.by_rule && !st.reading.empty()) label += "\\n~ " + dot_escape(st.reading);
  if (!st.substitution.empty()) {
    label += "\\n{";
    for (std::size_t i = 0; i < st.substitution.size(); ++i)
      label += (i ? ", " : "") + dot_escape(st.substitution[i].variable + "/" + st.substitution[i].value);
    label += "}";
  }
  return label + "\\nunification " + short_number(st.score);
}

}  // namespace

std::string json_string(const std::string& text) {
  std::string s = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
  }
  return s + "\"";
}

std::string to_json(const Explanation& e) {
  std::string s = "{\"atom\":" + json_string(e.atom) + ",\"score\":" + number(e.score) + ",\"proof_score\":" +
                  number(e.proof_score);
  if (e.complex_score >= 0) s += ",\"complex_score\":" + number(e.complex_score);
  s += ",\"proofs_searched\":" + std::to_string(e.proofs_searched) + ",\"proofs\":[";
  for (std::size_t i = 0; i < e.proofs.size(); ++i) s += (i ? "," : "") + proof_json(e.proofs[i]);
  return s + "]}";
}

std::string to_json(const std::string& query, const std::vector<Answer>& answers) {
  std::string s = "{\"query\":" + json_string(query) + ",\"answers\":[";
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const Answer& a = answers[i];
    s += std::string(i ? "," : "") + "{\"atom\":" + json_string(a.atom) + ",\"score\":" + number(a.score) +
         ",\"known\":" + (a.known ? "true" : "false") + ",\"bindings\":" + bindings_json(a.bindings) +
         ",\"proof\":" + proof_json(a.best_proof) + "}";
  }
  return s + "]}";
}

// The proofs drawn as one tree: proofs that begin with the same steps share
// those nodes (a step's node is keyed by its parent node and what it did), so
// the picture shows where the proofs part, as the paper's Figure 1 does.
// A step's parent is the nearest earlier rule step one level up (the rule
// whose body it proves), or the query for depth 0. Proof 1, the best, is
// drawn bold and red.
std::string to_dot(const Explanation& e) {
  std::string out = "digraph proof {\n  rankdir=TB;\n  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n"
                    "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  out += "  q [shape=ellipse, color=red, penwidth=2, label=\"" + dot_escape(e.atom) + "\\nscore " + short_number(e.score) + "\"];\n";
  std::map<std::tuple<std::string, bool, int, std::string>, std::string> node_of;  // (parent, kind, id, goal) -> node
  std::string edges;
  int nodes = 0;
  for (std::size_t p = 0; p < e.proofs.size(); ++p) {
    const bool best = p == 0;
    std::vector<std::string> rule_node_at_depth;  // innermost open rule step per depth
    std::string parent_of_leaf;
    for (const Step& st : e.proofs[p].steps) {
      const std::size_t depth = static_cast<std::size_t>(st.depth);
      const std::string parent = depth == 0 || depth > rule_node_at_depth.size() ? "q" : rule_node_at_depth[depth - 1];
      const auto key = std::make_tuple(parent, st.by_rule, st.id, st.goal);
      auto it = node_of.find(key);
      if (it == node_of.end()) {
        it = node_of.emplace(key, "s" + std::to_string(++nodes)).first;
        out += "  " + it->second + " [label=\"" + dot_label(st) + "\"" + (best ? ", color=red, penwidth=2" : "") + "];\n";
        edges += "  " + parent + " -> " + it->second + " [label=\"" + short_number(st.score) + "\"" +
                 (best ? ", color=red, penwidth=2" : "") + "];\n";
      }
      if (st.by_rule) {
        rule_node_at_depth.resize(depth + 1);
        rule_node_at_depth[depth] = it->second;
      }
      parent_of_leaf = it->second;
    }
    // Each proof ends in a leaf giving its score.
    const std::string leaf = "p" + std::to_string(p + 1);
    out += "  " + leaf + " [shape=plaintext, label=\"proof " + std::to_string(p + 1) + ": " + short_number(e.proofs[p].score) +
           "\"" + (best ? ", fontcolor=red" : "") + "];\n";
    edges += "  " + (parent_of_leaf.empty() ? std::string("q") : parent_of_leaf) + " -> " + leaf +
             " [style=dashed" + (best ? ", color=red" : "") + "];\n";
  }
  return out + edges + "}\n";
}

}  // namespace ntp
