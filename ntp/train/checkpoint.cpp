// ntp/train/checkpoint.cpp: checkpoint files (see checkpoint.h).
#include "ntp/train/checkpoint.h"

#include "ntp/kb/atomic_file.h"
#include "ntp/kb/fnv1a.h"
#include "ntp/model/binary_io.h"

#include <cstring>
#include <fstream>

namespace ntp {

namespace {

constexpr char kMagic[8] = {'N', 'T', 'P', 'C', 'H', 'E', 'C', 'K'};
constexpr std::int32_t kVersion = 3;  // 2: the training's seconds (version 1: read as 0); 3: the choices made
constexpr int kMaxOptimizerMatrices = 16;  // Adam: 3 per table, 2 tables

void write_f64(Writer& w, double v) { w.bytes(&v, sizeof v); }
double read_f64(Reader& r) {
  double v;
  r.bytes(&v, sizeof v);
  return v;
}

}  // namespace

std::string checkpoint_path(const std::string& model_path) { return model_path + ".ckpt"; }

std::uint64_t file_fingerprint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  std::uint64_t hash = kFnv1aOffset;
  char block[1 << 16];
  while (in.read(block, sizeof block) || in.gcount() > 0)
    hash = fnv1a(hash, reinterpret_cast<const unsigned char*>(block), static_cast<std::size_t>(in.gcount()));
  return hash;
}

void save_checkpoint(const Checkpoint& c, const std::string& path) {
  write_atomically(path, [&](std::ostream& out) {
    Writer w(out);
    w.bytes(kMagic, sizeof kMagic);
    w.i32(kVersion);
    w.str(c.settings);
    const TrainingState& s = c.state;
    w.i32(s.epochs_done);
    w.i32(static_cast<std::int32_t>(s.steps_done));
    write_f64(w, s.loss_sum);
    write_f64(w, s.recall_sum);
    w.i32(s.recall_probes);
    w.str(s.rng);
    w.str(s.probe_rng);
    w.i32(static_cast<std::int32_t>(s.order.size()));
    for (std::size_t f : s.order) w.i32(static_cast<std::int32_t>(f));
    w.i32(static_cast<std::int32_t>(s.optimizer.size()));
    for (const ad::Matrix& m : s.optimizer) w.matrix(m);
    write_f64(w, c.best_dev);
    w.i32(c.best_epoch);
    write_f64(w, s.seconds);
    const ChoicesMade& made = c.choices;
    w.i32((made.on_kept ? 1 : 0) | (made.mined_rules ? 2 : 0));
    w.str(made.width);
    w.str(made.combine);
    w.str(made.mined);
    w.str(made.asked);
    w.bytes(&made.model_file, sizeof made.model_file);
    write_model(c.model, out);  // last: its reader bounds counts by the bytes left
  });
}

Checkpoint load_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open checkpoint");
  return load_checkpoint(in, path);
}

Checkpoint load_checkpoint(std::istream& in, const std::string& path) {
  Checkpoint c;
  {
    Reader r(in, path, "checkpoint");
    char magic[sizeof kMagic];
    r.bytes(magic, sizeof magic);
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) r.fail("not an ntp checkpoint (bad magic number)");
    const std::int32_t version = r.i32();
    if (version < 1 || version > kVersion)
      r.fail("checkpoint version " + std::to_string(version) + ", this program reads versions 1 to " +
             std::to_string(kVersion) + ": train afresh instead of resuming");
    c.settings = r.str();
    TrainingState& s = c.state;
    s.started = true;
    s.epochs_done = r.i32();
    const std::int32_t steps_done = r.i32();
    if (s.epochs_done < 0 || steps_done < 0) r.fail("corrupt checkpoint (negative epoch or step)");
    s.steps_done = static_cast<std::size_t>(steps_done);
    s.loss_sum = read_f64(r);
    s.recall_sum = read_f64(r);
    s.recall_probes = r.i32();
    s.rng = r.str();
    s.probe_rng = r.str();
    s.order.resize(static_cast<std::size_t>(r.count(1 << 28, 4)));
    for (std::size_t& f : s.order) f = static_cast<std::size_t>(r.i32());
    s.optimizer.resize(static_cast<std::size_t>(r.count(kMaxOptimizerMatrices, 8)));
    for (ad::Matrix& m : s.optimizer) m = r.matrix();
    c.best_dev = read_f64(r);
    c.best_epoch = r.i32();
    s.seconds = version >= 2 ? read_f64(r) : 0;
    if (!(s.seconds >= 0)) r.fail("corrupt checkpoint (negative training time)");
    if (version >= 3) {
      const std::int32_t flags = r.i32();
      if (flags < 0 || flags > 3) r.fail("corrupt checkpoint (choices made: flags " + std::to_string(flags) + ")");
      ChoicesMade& made = c.choices;
      made.on_kept = (flags & 1) != 0;
      made.mined_rules = (flags & 2) != 0;
      made.width = r.str();
      made.combine = r.str();
      made.mined = r.str();
      made.asked = r.str();
      r.bytes(&made.model_file, sizeof made.model_file);
    }
  }
  c.model = load_model(in, path);
  // The order must be a permutation of the model's facts.
  std::vector<bool> seen(c.model.kb.facts.size(), false);
  if (c.state.order.size() != seen.size())
    throw std::runtime_error(path + ": corrupt checkpoint (an order of " + std::to_string(c.state.order.size()) +
                             " facts for a KB of " + std::to_string(seen.size()) + ")");
  for (std::size_t f : c.state.order) {
    if (f >= seen.size() || seen[f]) throw std::runtime_error(path + ": corrupt checkpoint (the fact order is not a permutation)");
    seen[f] = true;
  }
  return c;
}

}  // namespace ntp
