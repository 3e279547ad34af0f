// ntp/proof_format.cpp: explanations and answers as text, JSON and Graphviz
// `dot` (see ntp.h). Written by hand: small formats, no dependency.
#include "ntp/ntp.h"

#include "ntp/eval/rule_ranking.h"
#include "ntp/kb/text.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace ntp {

namespace {

// Scores in the picture: three decimals are enough to read.
std::string dot_score(double v) { return format_fixed(v, 3); }

std::string bindings_json(const std::vector<Binding>& bindings) {
  std::string s = "{";
  for (std::size_t i = 0; i < bindings.size(); ++i)
    s += (i ? "," : "") + json_string(bindings[i].variable) + ":" + json_string(bindings[i].value);
  return s + "}";
}

std::string step_json(const Step& st) {
  std::string s = "{\"depth\":" + std::to_string(st.depth) + ",\"goal\":" + json_string(st.goal) + ",\"by\":\"" +
                  (st.by_rule ? "rule" : "fact") + "\",\"id\":" + std::to_string(st.id) + ",\"used\":" + json_string(st.used);
  if (st.by_rule) s += ",\"reading\":" + json_string(st.reading) + ",\"confidence\":" + format_exact(st.confidence);
  s += ",\"substitution\":" + bindings_json(st.substitution) + ",\"matches\":[";
  for (std::size_t i = 0; i < st.matches.size(); ++i)
    s += std::string(i ? "," : "") + "{\"goal\":" + json_string(st.matches[i].goal_symbol) + ",\"matched\":" +
         json_string(st.matches[i].matched_symbol) + ",\"score\":" + format_exact(st.matches[i].score) + "}";
  return s + "],\"score\":" + format_exact(st.score) + "}";
}

std::string proof_json(const Proof& p) {
  std::string s = "{\"score\":" + format_exact(p.score) + ",\"steps\":[";
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
  return label + "\\nunification " + dot_score(st.score);
}

}  // namespace

std::string to_json(const Explanation& e) {
  std::string s = "{\"atom\":" + json_string(e.atom) + ",\"score\":" + format_exact(e.score) + ",\"proof_score\":" +
                  format_exact(e.proof_score);
  if (e.complex_score >= 0) s += ",\"complex_score\":" + format_exact(e.complex_score);
  if (!e.mined_rule.empty())
    s += ",\"mined_rule\":" + json_string(e.mined_rule) + ",\"mined_confidence\":" + format_exact(e.mined_confidence) +
         ",\"mined_rules\":" + std::to_string(e.mined_rules) +
         (std::isinf(e.mined_weight) ? std::string(",\"mined_weight\":\"first\"") : ",\"mined_weight\":" + format_exact(e.mined_weight));
  s += ",\"proofs_searched\":" + std::to_string(e.proofs_searched) + ",\"proofs\":[";
  for (std::size_t i = 0; i < e.proofs.size(); ++i) s += (i ? "," : "") + proof_json(e.proofs[i]);
  return s + "]}";
}

std::string to_json(const std::string& query, const std::vector<Answer>& answers) {
  std::string s = "{\"query\":" + json_string(query) + ",\"answers\":[";
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const Answer& a = answers[i];
    s += std::string(i ? "," : "") + "{\"atom\":" + json_string(a.atom) + ",\"score\":" + format_exact(a.score) +
         ",\"known\":" + (a.known ? "true" : "false") + ",\"bindings\":" + bindings_json(a.bindings) +
         (a.mined_rule.empty() ? std::string()
                               : ",\"mined_rule\":" + json_string(a.mined_rule) + ",\"mined_confidence\":" + format_exact(a.mined_confidence)) +
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
  out += "  q [shape=ellipse, color=red, penwidth=2, label=\"" + dot_escape(e.atom) + "\\nscore " + dot_score(e.score) + "\"];\n";
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
        edges += "  " + parent + " -> " + it->second + " [label=\"" + dot_score(st.score) + "\"" +
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
    out += "  " + leaf + " [shape=plaintext, label=\"proof " + std::to_string(p + 1) + ": " + dot_score(e.proofs[p].score) +
           "\"" + (best ? ", fontcolor=red" : "") + "];\n";
    edges += "  " + (parent_of_leaf.empty() ? std::string("q") : parent_of_leaf) + " -> " + leaf +
             " [style=dashed" + (best ? ", color=red" : "") + "];\n";
  }
  return out + edges + "}\n";
}

std::string to_text(const Step& step) {
  std::string by = step.by_rule ? "rule  " + step.used : "fact  " + step.used;
  if (step.by_rule) by += "  [~ " + step.reading + ", confidence " + format_fixed(step.confidence, 3) + "]";
  std::string bound;
  for (const Binding& b : step.substitution) bound += (bound.empty() ? "  {" : ", ") + b.variable + "/" + b.value;
  if (!bound.empty()) bound += "}";
  return "  " + std::string(2 * static_cast<std::size_t>(step.depth), ' ') + step.goal + "  <-  " + by + bound +
         "   (unification " + format_fixed(step.score, 4) + ")\n";
}

std::string to_text(const Explanation& e) {
  std::string s = e.atom + "  score " + format_fixed(e.proof_score, 4) + "  (" + std::to_string(e.proofs_searched) +
                  " proofs searched)\n";
  if (e.combine == combine_name(Combine::Proof))
    s += "ComplEx score " + format_fixed(e.complex_score, 4) + " (trained alongside; the model scores with its proofs)\n";
  else if (e.combine == combine_name(Combine::Complex))
    s += "ComplEx score " + format_fixed(e.complex_score, 4) + " (the model scores with its ComplEx part; the proofs explain)\n";
  else if (!e.combine.empty())
    s += "ComplEx score " + format_fixed(e.complex_score, 4) + "; NTPλ score " + e.combine + "(proof, ComplEx) = " +
         format_fixed(e.score, 4) + "\n";
  if (!e.mined_rule.empty()) {
    s += "predicted by the mined rule " + e.mined_rule + " (confidence " + format_fixed(e.mined_confidence, 3) + "; " +
         std::to_string(e.mined_rules) + " of the model's mined rules predict it)\n";
    s += std::isinf(e.mined_weight) ? std::string("ranking puts what the mined rules predict first\n")
                                    : "ranking score " + format_fixed(e.score, 4) + " + " + format_number(e.mined_weight) +
                                          " x " + format_fixed(e.mined_confidence, 3) + " = " +
                                          format_fixed(score_with_rule_evidence(e.score, e.mined_weight, e.mined_confidence), 4) + "\n";
  }
  for (std::size_t n = 0; n < e.proofs.size(); ++n) {
    s += "proof " + std::to_string(n + 1) + "  score " + format_fixed(e.proofs[n].score, 4) + "\n";
    for (const Step& step : e.proofs[n].steps) s += to_text(step);
  }
  return s;
}

std::string to_text(const std::vector<Answer>& answers) {
  std::string s;
  for (std::size_t n = 0; n < answers.size(); ++n) {
    const Answer& a = answers[n];
    std::string bound;
    for (const Binding& b : a.bindings) bound += (bound.empty() ? "" : ", ") + b.variable + " = " + b.value;
    const std::string rank = std::to_string(n + 1);
    s += std::string(rank.size() < 2 ? 1 : 0, ' ') + rank + ". " + a.atom + "  score " + format_fixed(a.score, 4) + "  " +
         bound + (a.known ? "  (a known fact)" : "") + "\n";
    if (!a.mined_rule.empty())
      s += "  predicted by the mined rule " + a.mined_rule + " (confidence " + format_fixed(a.mined_confidence, 3) + ")\n";
    for (const Step& step : a.best_proof.steps) s += to_text(step);
  }
  return s;
}

}  // namespace ntp
