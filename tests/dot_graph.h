// tests/dot_graph.h: a small reader for the Graphviz `dot` text that
// ntp::to_dot writes, so that tests can check its structure without Graphviz.
// It knows the subset we write: one statement per line, `name [attrs];` for a
// node and `a -> b [attrs];` for an edge, inside `digraph name { ... }`.
#pragma once

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

struct DotGraph {
  std::map<std::string, std::string> nodes;  // name -> attribute text
  struct Edge {
    std::string from, to, attributes;
  };
  std::vector<Edge> edges;

  // Throws std::runtime_error with the line number for anything else.
  static DotGraph parse(const std::string& text) {
    DotGraph g;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    bool open = false, closed = false;
    auto fail = [&](const std::string& what) {
      throw std::runtime_error("dot line " + std::to_string(number) + ": " + what + ": " + line);
    };
    while (std::getline(in, line)) {
      ++number;
      const std::size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos) continue;
      const std::string s = line.substr(start);
      if (closed) fail("text after the closing brace");
      if (!open) {
        if (s.rfind("digraph ", 0) != 0 || s.back() != '{') fail("expected 'digraph NAME {'");
        open = true;
        continue;
      }
      if (s == "}") { closed = true; continue; }
      if (s.back() != ';') fail("a statement must end with ';'");
      const std::size_t bracket = s.find(" [");
      const std::string head = s.substr(0, bracket == std::string::npos ? s.size() - 1 : bracket);
      std::string attributes;
      if (bracket != std::string::npos) {
        if (s.size() < bracket + 4 || s[s.size() - 2] != ']') fail("unclosed attribute list");
        attributes = s.substr(bracket + 2, s.size() - bracket - 4);
        if (std::count(attributes.begin(), attributes.end(), '"') % 2 != 0 &&
            attributes.find("\\\"") == std::string::npos)
          fail("unbalanced quotes");
      }
      if (head == "node" || head == "edge" || head.find('=') != std::string::npos) continue;  // defaults, graph attributes
      const std::size_t arrow = head.find(" -> ");
      if (arrow == std::string::npos) {
        if (head.find(' ') != std::string::npos) fail("a node name has no spaces");
        if (!g.nodes.emplace(head, attributes).second) fail("node declared twice");
      } else {
        g.edges.push_back({head.substr(0, arrow), head.substr(arrow + 4), attributes});
      }
    }
    if (!closed) throw std::runtime_error("dot: no closing brace");
    for (const Edge& e : g.edges)
      if (!g.nodes.count(e.from) || !g.nodes.count(e.to))
        throw std::runtime_error("dot: edge " + e.from + " -> " + e.to + " names an undeclared node");
    return g;
  }

  // Edges into each node.
  std::map<std::string, int> in_degree() const {
    std::map<std::string, int> d;
    for (const auto& n : nodes) d[n.first] = 0;
    for (const Edge& e : edges) ++d[e.to];
    return d;
  }
  // Nodes whose name starts with `prefix`.
  int count(const std::string& prefix) const {
    int n = 0;
    for (const auto& node : nodes) n += node.first.rfind(prefix, 0) == 0;
    return n;
  }
};
