// python/module.h: what the two halves of the Python module `ntp` share: the
// Reasoner as Python holds it, and the calls that register each half's
// functions (ntp_module.cpp: asking a model; train_binding.cpp: training).
#pragma once

#include "ntp/ntp.h"

#include <pybind11/pybind11.h>

#include <optional>

namespace ntp_python {

namespace py = pybind11;

// A Reasoner, and when it was returned by ntp.train, how that run ended.
struct PyReasoner {
  ntp::Reasoner reasoner;
  std::optional<ntp::RunResult> training;
};

// Raises OSError naming `path` (FileNotFoundError when it is missing) unless
// it can be opened: the error Python programs expect for a wrong path, rather
// than a RuntimeError.
void require_file(const std::string& path);

void bind_reasoner(py::module_& m);  // ntp.load, Reasoner, the result classes, to_json/to_text/to_dot
void bind_training(py::module_& m);  // ntp.train, ntp.train_from_text, ntp.train_options, RunResult

}  // namespace ntp_python
