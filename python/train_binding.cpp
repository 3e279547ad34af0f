// python/train_binding.cpp: training from Python, ntp.train (files) and
// ntp.train_from_text (strings). The keyword options are `ntp train`'s, with
// '_' for '-' (k_rules, recall_every, ...), read through the library's table
// (ntp/train/option_table.h), so that both front ends take the same settings
// with the same checks and messages.
//
// Progress lines go to sys.stderr, or to a callable given as `progress`
// (one call per line, without its newline), or nowhere with quiet=True. They
// are written with the GIL taken back for the moment; the rest of the run
// holds no GIL. When a progress line is written, pending signals are handled:
// an interrupt (Ctrl-C, a notebook's stop button) or an exception raised by
// the callable stops the run after its current step, with its checkpoint
// written, and is raised once train() has returned.
#include "python/module.h"
#include "ntp/train/mined_templates.h"

#include <omp.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <streambuf>

namespace ntp_python {

namespace {

// A stream buffer that hands each complete line to Python, and stops the run
// (through `stop`) when that raises or a signal handler does.
class PythonLines : public std::streambuf {
 public:
  explicit PythonLines(py::object write) : write_(std::move(write)) {}
  std::atomic<bool> stop{false};
  std::optional<py::error_already_set> error;  // what stopped the run

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    if (c != '\n') {
      line_ += static_cast<char>(c);
      return c;
    }
    py::gil_scoped_acquire gil;
    try {
      if (!write_.is_none() && !error) write_(line_);
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    } catch (py::error_already_set& e) {
      if (!error) error.emplace(std::move(e));
      stop.store(true);
    }
    line_.clear();
    return c;
  }

 private:
  py::object write_;
  std::string line_;
};

// Where progress lines go: the callable, sys.stderr, or nowhere.
py::object progress_target(const py::object& progress, bool quiet) {
  if (quiet) return py::none();
  if (!progress.is_none()) return progress;
  py::object stderr_stream = py::module_::import("sys").attr("stderr");
  return py::cpp_function([stderr_stream](const std::string& line) {
    stderr_stream.attr("write")(line + "\n");
    stderr_stream.attr("flush")();
  });
}

// A Python value of an option as the table reads it; TypeError unless it has the option's kind.
std::string option_text(const ntp::TrainOption& option, const py::handle& value, const char* function) {
  const bool is_bool = PyBool_Check(value.ptr());
  const bool is_integer = !is_bool && PyIndex_Check(value.ptr());
  const bool is_number = !is_bool && (is_integer || PyFloat_Check(value.ptr()));
  const bool is_text = PyUnicode_Check(value.ptr()) || py::hasattr(value, "__fspath__");
  const std::string name = ntp::spell_option(option.name, ntp::OptionSpelling::Keyword);
  auto refuse = [&](const char* expected) {
    return py::type_error(std::string(function) + "(): " + name + " takes " + expected + ", got " +
                          py::str(py::type::of(value).attr("__name__")).cast<std::string>());
  };
  switch (option.kind) {
    case ntp::OptionKind::Integer:
      if (!is_integer) throw refuse("an integer");
      return py::str(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())));
    case ntp::OptionKind::Number:
      if (!is_number) throw refuse("a number");
      return py::repr(py::float_(py::reinterpret_borrow<py::object>(value)));
    case ntp::OptionKind::Numbers: {  // a number, or a list or tuple of them to choose from
      if (is_number) return py::repr(py::float_(py::reinterpret_borrow<py::object>(value)));
      if (!PyList_Check(value.ptr()) && !PyTuple_Check(value.ptr())) throw refuse("a number or a list of numbers");
      std::string joined;
      for (const py::handle item : value) {
        if (PyBool_Check(item.ptr()) || !(PyIndex_Check(item.ptr()) || PyFloat_Check(item.ptr())))
          throw refuse("a number or a list of numbers");
        joined += (joined.empty() ? "" : ",") + py::repr(py::float_(py::reinterpret_borrow<py::object>(item))).cast<std::string>();
      }
      if (joined.empty()) throw refuse("a number or a non-empty list of numbers");
      return joined;
    }
    case ntp::OptionKind::Name:
      if (!is_text) throw refuse("a str");
      return py::module_::import("os").attr("fspath")(value).cast<std::string>();
    case ntp::OptionKind::Switch:
    case ntp::OptionKind::Flag:
      if (!is_bool) throw refuse("True or False");
      return value.cast<bool>() ? "true" : "false";
  }
  return "";
}

// The keyword options as settings; TypeError for an unknown name, ValueError for a bad value.
ntp::TrainSettings settings_from(const py::kwargs& options, const std::string& model_path, bool has_dev,
                                 const char* function) {
  std::vector<ntp::OptionText> given;
  for (const auto& item : options) {
    const std::string name = py::str(item.first);
    const ntp::TrainOption* option = ntp::find_train_option(name);
    if (!option || name.find('-') != std::string::npos) {
      std::string known;
      for (const ntp::TrainOption& o : ntp::train_option_table())
        known += (known.empty() ? "" : ", ") + ntp::spell_option(o.name, ntp::OptionSpelling::Keyword);
      throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" + name +
                           "' (the training options are: " + known + ")");
    }
    if (!item.second.is_none()) given.push_back({option->name, option_text(*option, item.second, function)});
  }
  ntp::TrainSettings s;
  s.run.model_path = model_path;
  ntp::apply_train_options(s, given, has_dev, ntp::OptionSpelling::Keyword);  // std::invalid_argument: ValueError
  return s;
}

// The model's path: the caller's, or a file in a new temporary folder, removed
// (with the checkpoint) once the trained model is loaded.
class ModelPlace {
 public:
  explicit ModelPlace(const std::optional<std::string>& path) {
    if (path) {
      path_ = *path;
      return;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "ntp-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary folder for the model");
    folder_ = pattern;
    path_ = (folder_ / "model.ntp").string();
  }
  ~ModelPlace() {
    std::error_code ignored;
    if (!folder_.empty()) std::filesystem::remove_all(folder_, ignored);
  }
  ModelPlace(const ModelPlace&) = delete;
  ModelPlace& operator=(const ModelPlace&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::filesystem::path folder_;
};

// OpenMP threads for the run (0 = all cores), restored after it.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : before_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadCount() { omp_set_num_threads(before_); }

 private:
  int before_;
};

// How train() or train_from_text() was called, besides the data and the options.
struct Call {
  const char* function;  // its name, for messages
  std::optional<std::string> model;
  int threads;
  bool quiet;
  py::object progress;
};

// Reads the data and trains on it without the GIL; returns the trained model
// as a Reasoner, or raises what stopped the run.
PyReasoner run(const Call& call, const std::function<ntp::TrainingData()>& read, bool has_dev,
               const py::kwargs& options) {
  if (call.threads < 0) throw py::value_error("threads must be >= 0 (0 = all cores), got " + std::to_string(call.threads));
  const ModelPlace place(call.model);
  ntp::TrainSettings s = settings_from(options, place.path(), has_dev, call.function);
  PythonLines lines(progress_target(call.progress, call.quiet));
  std::ostream out(&lines);
  s.run.stop = &lines.stop;
  std::optional<ntp::RunResult> result;
  std::optional<ntp::Reasoner> reasoner;
  {
    py::gil_scoped_release release;
    const ThreadCount threads(call.threads);
    const ntp::TrainingData data = read();
    result = ntp::train(data, s.model, s.train, s.run, &out);
    if (!lines.error) reasoner = ntp::Reasoner::load(s.run.model_path);
  }
  if (lines.error) {
    if (!result->finished && call.model && !call.quiet)
      py::print("stopped after epoch " + std::to_string(result->epochs_done) + "; checkpoint written to " +
                    result->checkpoint + " (resume=True continues it)",
                py::arg("file") = py::module_::import("sys").attr("stderr"));
    throw std::move(*lines.error);
  }
  return PyReasoner{*reasoner, result};
}

PyReasoner train_files(const std::string& train, const std::optional<std::string>& templates,
                       const std::optional<std::string>& dev, const std::optional<std::string>& test,
                       const std::optional<std::string>& model, int threads, bool quiet, const py::object& progress,
                       const py::kwargs& options) {
  for (const auto* file : {&dev, &test})
    if (*file) require_file(**file);
  if (templates && *templates != ntp::kMinedTemplatesKeyword) require_file(*templates);
  require_file(train);
  const auto read = [&] {
    return ntp::read_training_data(train, templates.value_or(""), dev.value_or(""), test.value_or(""));
  };
  return run({"train", model, threads, quiet, progress}, read, dev.has_value(), options);
}

PyReasoner train_text(const std::string& facts, const std::string& templates, const std::optional<std::string>& model,
                      int threads, bool quiet, const py::object& progress, const py::kwargs& options) {
  const auto read = [&] { return ntp::training_data_from_text(facts, templates); };
  return run({"train_from_text", model, threads, quiet, progress}, read, false, options);
}

// {name: (default, help)} for every training option, in `ntp train --help`'s order.
py::dict option_list() {
  py::dict d;
  const ntp::TrainSettings defaults;
  for (const ntp::TrainOption& o : ntp::train_option_table())
    d[py::str(ntp::spell_option(o.name, ntp::OptionSpelling::Keyword))] = py::make_tuple(o.get(defaults), o.help);
  return d;
}

// train()'s docstring: what it does, then every option with its default and
// help, from the table.
std::string train_doc() {
  std::string doc =
      "Trains a model on facts and rule templates and returns it as a Reasoner.\n\n"
      "The model is written to `model` (with its checkpoint model + '.ckpt'), or to a temporary file removed\n"
      "afterwards when model is None. threads: OpenMP threads (0 = all cores). Progress lines go to sys.stderr,\n"
      "to `progress` (a callable taking each line) or nowhere (quiet=True). An interrupt or an exception in\n"
      "`progress` stops the run after its step with a checkpoint written (resume=True continues it) and is\n"
      "raised.\n\nKeyword options, as `ntp train`'s with '_' for '-':\n";
  const ntp::TrainSettings defaults;
  for (const ntp::TrainOption& o : ntp::train_option_table()) {
    const std::string value = o.get(defaults);
    doc += "  " + ntp::spell_option(o.name, ntp::OptionSpelling::Keyword) + (value.empty() ? "" : " = " + value) +
           ": " + o.help + "\n";
  }
  return doc;
}

}  // namespace

void bind_training(py::module_& m) {
  py::class_<ntp::RunResult>(m, "RunResult", "How a training run ended (Reasoner.training).")
      .def_readonly("finished", &ntp::RunResult::finished)
      .def_readonly("epochs_done", &ntp::RunResult::epochs_done)
      .def_readonly("metric", &ntp::RunResult::metric, "the dev metric's name ('' when none was measured)")
      .def_readonly("best_dev", &ntp::RunResult::best_dev)
      .def_readonly("best_epoch", &ntp::RunResult::best_epoch)
      .def_readonly("checkpoint", &ntp::RunResult::checkpoint)
      .def_readonly("width_choice", &ntp::RunResult::width_choice,
                    "with ranked dev facts and a model scored by its proofs: the facts per or-step it ranks with, chosen on dev, and each width's dev metric ('' otherwise)")
      .def_readonly("combine_choice", &ntp::RunResult::combine_choice,
                    "when the rule was chosen on dev (combine='dev', or 'auto' with dev facts): the rule chosen and each rule's dev metric ('' otherwise)")
      .def_readonly("l2_choice", &ntp::RunResult::l2_choice,
                    "when l2 was a list chosen from on dev facts: the value chosen and each value's dev metric ('' otherwise)")
      .def_readonly("templates_choice", &ntp::RunResult::templates_choice,
                    "with a templates file, ranked dev facts and a small KB (mined_templates): the templates kept, 'file' or 'mined', each one's dev metric and the mined rules ('' otherwise)")
      .def_readonly("mined_rules", &ntp::RunResult::mined_rules,
                    "with ranked dev facts: whether mined rules were kept beside the model's score, their weight and the dev metrics ('' otherwise)")
      .def_readonly("dev_carved", &ntp::RunResult::dev_carved,
                    "given no dev facts (dev_from_train): how many training facts were held out to choose on ('' otherwise)")
      .def("__repr__", [](const ntp::RunResult& r) {
        return "RunResult(epochs_done=" + std::to_string(r.epochs_done) + (r.metric.empty() ? "" : ", best dev " +
               r.metric + " " + ntp::format_number(r.best_dev) + " after epoch " + std::to_string(r.best_epoch)) + ")";
      });
  static const std::string doc = train_doc();
  m.def("train", &train_files, py::arg("train"), py::arg("templates") = py::none(), py::arg("dev") = py::none(),
        py::arg("test") = py::none(), py::arg("model") = py::none(), py::kw_only(), py::arg("threads") = 0,
        py::arg("quiet") = false, py::arg("progress") = py::none(), doc.c_str());
  m.def("train_from_text", &train_text, py::arg("facts"), py::arg("templates") = "", py::arg("model") = py::none(),
        py::kw_only(), py::arg("threads") = 0, py::arg("quiet") = false, py::arg("progress") = py::none(),
        "As train(), from facts and templates in the .nl and .nlt formats given as strings.");
  m.def("train_options", &option_list, "{name: (default, help)} of every keyword option of train().");
}

}  // namespace ntp_python
