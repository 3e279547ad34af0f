// ntp/train/settings.cpp: a run's settings as text, and their comparison (see settings.h).
#include "ntp/train/settings.h"

#include "ntp/kb/fnv1a.h"

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ntp {

namespace {

// FNV-1a (kb/fnv1a.h) over the data's symbols, facts, templates and dev/test atoms: a
// resumed run must train on the same KB.
class Fingerprint {
 public:
  void add(const std::string& s) {
    const unsigned char separator = 0xff;  // so that "ab","c" differs from "a","bc"
    hash_ = fnv1a(hash_, reinterpret_cast<const unsigned char*>(s.data()), s.size());
    hash_ = fnv1a(hash_, &separator, 1);
  }
  void add(const Atom& a) {
    add(std::to_string(a.predicate));
    for (int c : a.args) add(std::to_string(c));
  }
  std::string hex() const {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash_));
    return buf;
  }

 private:
  std::uint64_t hash_ = kFnv1aOffset;
};

std::string data_hash(const TrainingData& d) {
  Fingerprint f;
  for (const std::string& n : d.kb.predicates.names()) f.add(n);
  for (const std::string& n : d.kb.constants.names()) f.add(n);
  for (const Atom& a : d.kb.facts) f.add(a);
  for (const Template& t : d.kb.templates) f.add(std::to_string(t.copies) + " " + to_string(d.kb, t));
  f.add("dev");
  for (const Atom& a : d.dev) f.add(a);
  for (const LabelledAtom& a : d.dev_labelled) f.add(std::to_string(a.label));
  f.add("test");
  for (const Atom& a : d.test) f.add(a);
  return f.hex();
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);  // exact: a resumed run compares them as text
  return buf;
}

// name -> value of a settings text.
std::vector<std::pair<std::string, std::string>> settings_lines(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return out;
}

}  // namespace

std::string training_settings(const TrainingData& data, const ModelOptions& m, const TrainOptions& t, const RunOptions& r) {
  std::ostringstream s;
  s << "dim=" << m.dim << "\ndepth=" << m.prover.depth << "\nk=" << m.prover.k_facts << "\nk-rules=" << m.prover.k_rules
    << "\nindex=" << m.prover.index << "\ncomplex=" << m.prover.complex << "\ncombine=" << combine_name(m.prover.combine)
    << "\nseed=" << m.seed << "\nbatch=" << t.batch << "\nnegatives=" << t.negatives << "\nmask=" << training_mask_name(t.mask)
    << "\nlr=" << number(t.learning_rate) << "\nl2=" << number(t.l2) << "\nclip=" << number(t.clip)
    << "\noptimizer=" << t.optimizer << "\nrefresh=" << t.index.update_every << "\nrecall-every=" << t.recall_every
    << "\neval-every=" << r.eval_every << "\nkeep=" << keep_name(r.keep) << "\ndata=" << data_hash(data) << "\n";
  // Only when on: checkpoints from before these options still resume.
  if (m.attention) s << "attention=1\n";
  if (m.prover.k_open != 0) s << "k-open=" << m.prover.k_open << "\n";
  if (m.reformulator != Reformulator::None) s << "reformulator=" << reformulator_name(m.reformulator) << "\n";
  if (t.explore > 0) s << "explore=" << number(t.explore) << "\n";
  if (m.constant_init != 1.0) s << "constant-init=" << number(m.constant_init) << "\n";
  if (t.complex_epochs > 0) s << "complex-epochs=" << t.complex_epochs << "\n";
  if (t.complex_loss != ComplexLoss::Sampled)
    s << "complex-loss=" << complex_loss_name(t.complex_loss) << "\ncomplex-batch=" << t.complex_batch
      << "\ncomplex-candidates=" << t.complex_candidates << "\n";
  if (t.freeze_kb) s << "freeze-kb=1\n";
  if (t.proof_loss != ProofLoss::Binary) s << "proof-loss=" << proof_loss_name(t.proof_loss) << "\n";
  if (t.predicate_negatives > 0) s << "predicate-negatives=" << t.predicate_negatives << "\n";
  if (t.l2_predicates != -1) s << "l2-predicates=" << number(t.l2_predicates) << "\n";
  return s.str();
}

std::string setting_value(const std::string& settings, const std::string& name) {
  for (const auto& [n, v] : settings_lines(settings))
    if (n == name) return v;
  return "";
}

void check_same_settings(const std::string& now, const std::string& saved, const std::string& checkpoint) {
  std::string differences;
  const auto before = settings_lines(saved), after = settings_lines(now);
  const std::string not_set = "(not set)";
  auto value_in = [&not_set](const std::vector<std::pair<std::string, std::string>>& lines, const std::string& name) {
    for (const auto& [n, v] : lines)
      if (n == name) return v;
    return not_set;
  };
  auto differ = [&](const std::string& name, const std::string& value, const std::string& old) {
    if (!differences.empty()) differences += "; ";
    differences += name == "data" ? "the training data (facts, templates, dev or test atoms) differ"
                                  : name + " is " + value + " now but " + old + " in the checkpoint";
  };
  for (const auto& [name, value] : after) {
    const std::string old = value_in(before, name);
    if (old != value) differ(name, value, old);
  }
  // A setting written only when on (attention, explore, ...) and dropped now.
  for (const auto& [name, old] : before)
    if (value_in(after, name) == not_set) differ(name, not_set, old);
  if (!differences.empty())
    throw std::invalid_argument("cannot resume from " + checkpoint + ": " + differences +
                                " (resume with the settings the checkpoint was trained with, or train afresh)");
}

}  // namespace ntp
