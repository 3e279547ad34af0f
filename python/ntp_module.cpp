// python/ntp_module.cpp: the Python module `ntp`, asking a trained model:
// ntp.load, Reasoner.prove/answer/score/rules/evaluate, the embedding tables
// as NumPy arrays, and the results as Python objects (copies of the library's
// plain structs, ntp/prover/explanation.h) with to_json/to_text/to_dot.
// Training is in train_binding.cpp.
//
// The GIL is released while the library works (loading, proving, answering,
// scoring, evaluating), so that other Python threads run meanwhile; one
// Reasoner may be asked from several threads at once (ntp.h). The library's
// errors become Python exceptions with its message: ParseError (a ValueError
// with file, line and column), std::invalid_argument as ValueError, other
// errors as RuntimeError, a missing file as FileNotFoundError.
#include "python/module.h"

#include "ntp/model/model.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ntp_python {

namespace {

// Runs `call` without the GIL.
template <class Call>
auto without_gil(Call call) -> decltype(call()) {
  py::gil_scoped_release release;
  return call();
}

// A number as Python writes it in a repr.
std::string num(double v) { return py::repr(py::float_(v)).cast<std::string>(); }

py::dict bindings_dict(const std::vector<ntp::Binding>& bindings) {
  py::dict d;
  for (const ntp::Binding& b : bindings) d[py::str(b.variable)] = b.value;
  return d;
}

// A table of the model (rows, dim) as a new float64 array.
py::array_t<double> copy_table(const ad::Matrix& table) {
  py::array_t<double> a({static_cast<py::ssize_t>(table.rows()), static_cast<py::ssize_t>(table.cols())});
  if (table.size() > 0) std::memcpy(a.mutable_data(), table.data(), sizeof(double) * table.size());  // both row-major
  return a;
}

void bind_proof_classes(py::module_& m) {
  py::class_<ntp::SymbolMatch>(m, "SymbolMatch", "Two symbols unification compared and their kernel exp(-|a - b|).")
      .def_readonly("goal_symbol", &ntp::SymbolMatch::goal_symbol)
      .def_readonly("matched_symbol", &ntp::SymbolMatch::matched_symbol)
      .def_readonly("score", &ntp::SymbolMatch::score)
      .def("__repr__", [](const ntp::SymbolMatch& s) {
        return "SymbolMatch(" + s.goal_symbol + " ~ " + s.matched_symbol + ", score=" + num(s.score) + ")";
      });
  py::class_<ntp::Step>(m, "Step", "One or-step of a proof: a goal proven by a fact or a rule.")
      .def_readonly("depth", &ntp::Step::depth)
      .def_readonly("goal", &ntp::Step::goal)
      .def_readonly("by_rule", &ntp::Step::by_rule)
      .def_readonly("id", &ntp::Step::id)
      .def_readonly("used", &ntp::Step::used)
      .def_readonly("reading", &ntp::Step::reading)
      .def_readonly("confidence", &ntp::Step::confidence)
      .def_property_readonly("substitution", [](const ntp::Step& s) { return bindings_dict(s.substitution); },
                             "what the step bound: {variable: symbol}")
      .def_readonly("matches", &ntp::Step::matches)
      .def_readonly("score", &ntp::Step::score)
      .def("__str__", [](const ntp::Step& s) { return ntp::to_text(s); })
      .def("__repr__", [](const ntp::Step& s) {
        return "Step(depth=" + std::to_string(s.depth) + ", goal=" + py::repr(py::str(s.goal)).cast<std::string>() +
               ", " + (s.by_rule ? "rule=" : "fact=") + py::repr(py::str(s.used)).cast<std::string>() +
               ", score=" + num(s.score) + ")";
      });
  py::class_<ntp::Proof>(m, "Proof", "A proof: its steps, depth first, and its score (the least step score).")
      .def_readonly("score", &ntp::Proof::score)
      .def_readonly("steps", &ntp::Proof::steps)
      .def("__repr__", [](const ntp::Proof& p) {
        return "Proof(score=" + num(p.score) + ", steps=" + std::to_string(p.steps.size()) + ")";
      });
}

void bind_result_classes(py::module_& m) {
  py::class_<ntp::Explanation>(m, "Explanation", "An atom's score and its best proofs (Reasoner.prove).")
      .def_readonly("atom", &ntp::Explanation::atom)
      .def_readonly("score", &ntp::Explanation::score)
      .def_readonly("proof_score", &ntp::Explanation::proof_score)
      .def_readonly("complex_score", &ntp::Explanation::complex_score, "NTPλ models: the ComplEx score; -1 otherwise")
      .def_readonly("combine", &ntp::Explanation::combine)
      .def_readonly("proofs_searched", &ntp::Explanation::proofs_searched)
      .def_readonly("mined_rule", &ntp::Explanation::mined_rule,
                    "with the model's mined rules: the most confident rule predicting the atom ('' if none)")
      .def_readonly("mined_confidence", &ntp::Explanation::mined_confidence)
      .def_readonly("mined_rules", &ntp::Explanation::mined_rules, "how many of the model's mined rules predict the atom")
      .def_readonly("mined_weight", &ntp::Explanation::mined_weight,
                    "the weight ranking gives the rule's confidence beside the score (inf: the rules rank first; 0: no mined rules)")
      .def_readonly("proofs", &ntp::Explanation::proofs)
      .def("__str__", [](const ntp::Explanation& e) { return ntp::to_text(e); })
      .def("__repr__", [](const ntp::Explanation& e) {
        return "Explanation(" + e.atom + ", score=" + num(e.score) + ", proofs=" + std::to_string(e.proofs.size()) + ")";
      });
  py::class_<ntp::Answer>(m, "Answer", "A binding of a query's variables with its score (Reasoner.answer).")
      .def_property_readonly("bindings", [](const ntp::Answer& a) { return bindings_dict(a.bindings); })
      .def_readonly("atom", &ntp::Answer::atom)
      .def_readonly("score", &ntp::Answer::score)
      .def_readonly("known", &ntp::Answer::known, "the atom is a fact of the KB")
      .def_readonly("mined_rule", &ntp::Answer::mined_rule,
                    "with the model's mined rules: the most confident rule predicting the atom ('' if none)")
      .def_readonly("mined_confidence", &ntp::Answer::mined_confidence)
      .def_readonly("best_proof", &ntp::Answer::best_proof)
      .def("__repr__", [](const ntp::Answer& a) {
        return "Answer(" + a.atom + ", score=" + num(a.score) + (a.known ? ", known" : "") + ")";
      });
  py::class_<ntp::InducedRule>(m, "InducedRule", "A rule read out of the model (Reasoner.rules).")
      .def_readonly("rule", &ntp::InducedRule::rule)
      .def_readonly("confidence", &ntp::InducedRule::confidence)
      .def_readonly("text", &ntp::InducedRule::text)
      .def_readonly("started_from", &ntp::InducedRule::started_from,
                    "the mined rule it started from ('' for a template's random slots)")
      .def_readonly("mined_confidence", &ntp::InducedRule::mined_confidence,
                    "that rule's confidence on the training facts (-1 if none)")
      .def("__repr__", [](const ntp::InducedRule& r) {
        return "InducedRule(" + r.text + ", confidence=" + num(r.confidence) + ")";
      });
  py::class_<ntp::JudgedRule>(m, "JudgedRule",
                              "A rule the training facts support, judged by the model (Reasoner.judged_rules).")
      .def_readonly("text", &ntp::JudgedRule::text)
      .def_readonly("confidence", &ntp::JudgedRule::confidence,
                    "on the training facts completed by the facts the model holds true (score >= 0.5)")
      .def_readonly("counted_confidence", &ntp::JudgedRule::counted_confidence, "on the training facts alone")
      .def_readonly("pairs", &ntp::JudgedRule::pairs, "body pairs judged")
      .def_readonly("inferred", &ntp::JudgedRule::inferred, "of those, not facts but held true by the model")
      .def("__repr__", [](const ntp::JudgedRule& r) {
        return "JudgedRule(" + r.text + ", confidence=" + num(r.confidence) + ", counted=" + num(r.counted_confidence) + ")";
      });
}

void bind_formats(py::module_& m) {
  m.def("to_json", py::overload_cast<const ntp::Explanation&>(&ntp::to_json), py::arg("explanation"),
        "The explanation as one JSON object, as `ntp prove --format json` prints it.");
  m.def("to_json", py::overload_cast<const std::string&, const std::vector<ntp::Answer>&>(&ntp::to_json),
        py::arg("query"), py::arg("answers"), "Answers as one JSON object, as `ntp answer --json` prints them.");
  m.def("to_text", py::overload_cast<const ntp::Explanation&>(&ntp::to_text), py::arg("explanation"));
  m.def("to_text", py::overload_cast<const ntp::Step&>(&ntp::to_text), py::arg("step"));
  m.def("to_text", py::overload_cast<const std::vector<ntp::Answer>&>(&ntp::to_text), py::arg("answers"));
  m.def("to_dot", &ntp::to_dot, py::arg("explanation"), "The proofs as a Graphviz graph (render with `dot -Tpng`).");
}

PyReasoner load(const std::string& path, std::optional<int> k, std::optional<std::string> index) {
  require_file(path);
  if (k && *k < 0) throw py::value_error("k must be >= 0 (0 = all facts), got " + std::to_string(*k));
  ntp::SearchOptions options;
  options.k = k.value_or(-1);
  options.index = index.value_or("");
  return without_gil([&] { return PyReasoner{ntp::Reasoner::load(path, options), std::nullopt}; });
}

py::dict evaluate(const PyReasoner& r, const std::string& protocol, const std::string& test, const std::string& dev,
                  const std::string& regions, const std::string& truth, const std::vector<std::string>& filter,
                  const std::string& score, const std::string& tie_break, const std::string& index, int sample,
                  std::uint64_t sample_seed) {
  if (sample < 0) throw py::value_error("sample must be >= 0 (0 = every test triple), got " + std::to_string(sample));
  ntp::EvalRequest q;
  q.protocol = protocol, q.test = test, q.dev = dev, q.regions = regions, q.truth = truth, q.filter = filter;
  q.score = score, q.tie_break = tie_break, q.index = index;
  q.sample = static_cast<std::size_t>(sample), q.sample_seed = sample_seed;
  const ntp::EvalReport report = without_gil([&] { return r.reasoner.evaluate(q); });
  return py::module_::import("json").attr("loads")(report.json);
}

std::string reasoner_repr(const PyReasoner& r) {
  const ntp::Model& model = r.reasoner.model();
  std::ostringstream s;
  s << "Reasoner(" << model.num_kb_predicates << " predicates, "
    << model.num_rule_slots << " rule slots, " << model.constants.value.rows()
    << " constants, " << model.kb.facts.size() << " facts, " << model.rules.size() << " rules, dim " << model.dim
    << ", depth " << model.prover.depth << ", k " << model.prover.k_facts << (model.prover.complex ? ", NTPλ" : "")
    << ")";
  return s.str();
}

void bind_reasoner_queries(py::class_<PyReasoner>& c) {
  c.def("prove", [](const PyReasoner& r, const std::string& atom, int top) {
     if (top < 0) throw py::value_error("top must be >= 0, got " + std::to_string(top));
     return without_gil([&] { return r.reasoner.prove(atom, top); });
   }, py::arg("atom"), py::arg("top") = 3, "Scores a ground atom, 'grandfatherOf(abe, bart)', and explains its best proofs.")
   .def("answer", [](const PyReasoner& r, const std::string& query, int top) {
     return without_gil([&] { return r.reasoner.answer(query, top); });
   }, py::arg("query"), py::arg("top") = 10, "The best bindings of a query's variables, 'fatherOf(X, bart)'.")
   .def("score", [](const PyReasoner& r, const std::vector<std::string>& atoms) {
     return without_gil([&] { return r.reasoner.score(atoms); });
   }, py::arg("atoms"), "The model's score of each ground atom in a list.")
   .def("rules", [](const PyReasoner& r, double min_confidence) {
     return without_gil([&] { return r.reasoner.rules(min_confidence); });
   }, py::arg("min_confidence") = 0.5, "The induced rules with at least this confidence, most confident first.")
   .def("judged_rules", [](const PyReasoner& r) {
     const ntp::JudgedRules judged = without_gil([&] { return r.reasoner.judged_rules(); });
     return py::make_tuple(judged.rules, judged.random_belief);
   }, "(rules, random_belief): the rules the training facts support (`ntp mine`'s defaults, chain rules only), each judged by the "
      "model, most confident first, and the share of random corruptions of its facts the model holds true, as "
      "`ntp rules --mine`.")
   .def("evaluate", &evaluate, py::arg("protocol"), py::arg("test"), py::arg("dev") = "", py::arg("regions") = "",
        py::arg("truth") = "", py::arg("filter") = std::vector<std::string>(), py::arg("score") = "model",
        py::arg("tie_break") = "support", py::arg("index") = "", py::arg("sample") = 0, py::arg("sample_seed") = 0,
        "One of the evaluation protocols, as `ntp eval`: the metrics as the dict `ntp eval --json` prints. "
        "Ranking: `sample` test triples drawn at random (0 = all), with each metric's 95% half-width.");
}

void bind_reasoner_tables(py::class_<PyReasoner>& c) {
  c.def_property_readonly("predicate_embeddings", [](const PyReasoner& r) {
     return copy_table(r.reasoner.model().predicates.value);
   }, "(predicates + rule slots, dim) float64, a copy: rows in the order of predicate_names")
   .def_property_readonly("constant_embeddings", [](const PyReasoner& r) {
     return copy_table(r.reasoner.model().constants.value);
   }, "(constants, dim) float64, a copy: rows in the order of constant_names")
   .def_property_readonly("predicate_names", [](const PyReasoner& r) {
     std::vector<std::string> names;
     const ntp::Model& model = r.reasoner.model();
     for (int row = 0; row < static_cast<int>(model.predicates.value.rows()); ++row)
       names.push_back(model.predicate_row_name(row));
     return names;
   }, "the KB's predicates, then the rule slots '#0', '#1', ...")
   .def_property_readonly("constant_names", [](const PyReasoner& r) {
     return r.reasoner.model().kb.constants.names();
   })
   .def_property_readonly("training", [](const PyReasoner& r) { return r.training; },
                          "how the run that made it ended (ntp.train), or None for a loaded model")
   .def("__repr__", &reasoner_repr);
}

}  // namespace

void require_file(const std::string& path) {
  if (std::ifstream(path).good()) return;
  const int error = errno ? errno : ENOENT;
  PyErr_SetObject(PyExc_OSError,  // OSError(ENOENT, ...) is a FileNotFoundError
                  py::make_tuple(error, std::string(std::strerror(error)), path).ptr());
  throw py::error_already_set();
}

void bind_reasoner(py::module_& m) {
  bind_proof_classes(m);
  bind_result_classes(m);
  bind_formats(m);
  py::class_<PyReasoner> c(m, "Reasoner", "A trained model, ready to be asked (ntp.load, ntp.train).");
  bind_reasoner_queries(c);
  bind_reasoner_tables(c);
  m.def("load", &load, py::arg("path"), py::arg("k") = py::none(), py::arg("index") = py::none(),
        "Loads a model file; k (facts kept per or-step) and index (the fact index) override the model's.");
}

}  // namespace ntp_python

namespace {

// ntp.ParseError, a ValueError carrying the file, line and column of bad text.
void register_parse_error(pybind11::module_& m) {
  namespace py = pybind11;
  static py::handle type = py::exception<ntp::ParseError>(m, "ParseError", PyExc_ValueError).release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ntp::ParseError& e) {
      py::object error = py::reinterpret_borrow<py::object>(type)(e.what());
      error.attr("file") = e.file;
      error.attr("line") = e.line;
      error.attr("column") = e.column;
      PyErr_SetObject(type.ptr(), error.ptr());
    }
  });
}

}  // namespace

PYBIND11_MODULE(ntp, m) {
  m.doc() = "Neural Theorem Provers: load a model and prove, answer, score, read rules; train from files or text.";
  m.attr("__version__") = ntp::build_info().version;
  m.def("build", &ntp::build_line, "Which build this is: version, commit, native or portable, the distance kernels chosen for this CPU, threads.");
  register_parse_error(m);
  ntp_python::bind_reasoner(m);
  ntp_python::bind_training(m);
}
