// ntp/train/progress.cpp: training's progress lines (see progress.h).
#include "ntp/train/progress.h"

#include "ntp/kb/text.h"
#include "ntp/train/step_timer.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace ntp {

namespace {

// "  time: proof search 12.1 s (fact retrieval 20.3 thread-s, 1.20M queries, ...), ...; 900 goals/s;
// gradient 412 rows, 322.0 KiB a step[, 160.2 KiB sent in 1.2 s]\n", `label` in place of "time".
std::string describe(const TimeSplit& t, double epoch_seconds, const std::string& label = "time") {
  char line[560];
  const double known =
      t.proof_search + t.index_maintenance + t.forward + t.backward + t.optimiser + t.recall_probes + t.group;
  const double steps = std::max(1.0, static_cast<double>(t.steps));
  char group[96] = "";
  if (t.group_bytes > 0)
    std::snprintf(group, sizeof group, ", %.1f KiB sent in %.1f s", t.group_bytes / 1024.0 / steps, t.group);
  std::snprintf(line, sizeof line,
                "  %s: proof search %.1f s (fact retrieval %.1f thread-s, %.2fM queries, %lld widened), "
                "index maintenance %.1f s (%lld rows relinked), forward %.1f s, backward %.1f s, optimiser %.1f s, "
                "recall probes %.1f s, other %.1f s; %.0f goals/s; gradient %.0f rows, %.1f KiB a step%s\n",
                label.c_str(), t.proof_search, t.index.search_seconds, 1e-6 * static_cast<double>(t.index.queries),
                t.index.widened, t.index_maintenance, t.index.rows_relinked, t.forward, t.backward, t.optimiser, t.recall_probes,
                std::max(0.0, epoch_seconds - known), static_cast<double>(t.goals) / std::max(1e-9, epoch_seconds),
                static_cast<double>(t.gradient_rows) / steps, t.gradient_bytes / 1024.0 / steps, group);
  return line;
}

}  // namespace

bool ProgressPrinter::is_complex_only(int epoch) const { return epoch <= options_.complex_epochs; }

// The epochs after `epoch` of its own kind (ComplEx-only or with proofs).
int ProgressPrinter::epochs_left_like(int epoch) const {
  const int last = is_complex_only(epoch) ? options_.complex_epochs : options_.epochs;  // complex_epochs <= epochs
  return std::max(0, last - epoch);
}

// " + 3 epochs with proofs" while ComplEx-only epochs run: those have no pace yet.
std::string ProgressPrinter::prover_epochs_after(int epoch) const {
  const int n = options_.epochs - options_.complex_epochs;
  if (!is_complex_only(epoch) || n == 0) return "";
  return " + " + std::to_string(n) + (n == 1 ? " epoch" : " epochs") + " with proofs";
}

ProgressPrinter::ProgressPrinter(std::ostream* out, const TrainOptions& options, int first_epoch,
                                 std::size_t steps_per_epoch)
    : out_(out), options_(options), first_epoch_(first_epoch), steps_per_epoch_(steps_per_epoch) {}

void ProgressPrinter::start_epoch() { epoch_start_ = Clock::now(); }

void ProgressPrinter::after_steps(int epoch, std::size_t first, std::size_t last, double loss_sum) {
  const bool in_place = options_.progress_inline;
  // In place, every tenth step: due when the update's steps hold a multiple of 10.
  const bool due = in_place ? last / 10 * 10 >= first : seconds_since(last_line_) >= options_.progress_seconds;
  if (!out_ || !due || last + 1 >= steps_per_epoch_) return;  // the epoch's own line follows the last step
  last_line_ = Clock::now();
  const double steps = static_cast<double>(last + 1);
  const double epoch_seconds = seconds_since(epoch_start_) / steps * static_cast<double>(steps_per_epoch_);
  const double eta = epoch_seconds * (1 - steps / static_cast<double>(steps_per_epoch_)) +
                     epoch_seconds * static_cast<double>(epochs_left_like(epoch));
  char line[240];
  std::snprintf(line, sizeof line, "%sepoch %d/%d  step %zu/%zu  %.1f steps/s  loss %.4f  eta %s%s%s",
                in_place ? "\r" : "", epoch, options_.epochs, last + 1, steps_per_epoch_,
                steps / seconds_since(epoch_start_), loss_sum / steps, format_duration(eta).c_str(),
                prover_epochs_after(epoch).c_str(), in_place ? "   " : "\n");
  *out_ << line << std::flush;
}

void ProgressPrinter::after_epoch(const EpochReport& r, const std::string& index) {
  if (!out_) return;
  const double elapsed = seconds_since(start_);
  Pace& pace = pace_[is_complex_only(r.epoch)];
  pace.seconds += r.seconds;
  pace.epochs += 1;
  const double eta = pace.seconds / pace.epochs * static_cast<double>(epochs_left_like(r.epoch));
  char line[280];
  std::snprintf(line, sizeof line, "%sepoch %d/%d  loss %.4f  %.2f s  elapsed %s  eta %s%s",
                options_.progress_inline ? "\r" : "", r.epoch, options_.epochs, r.mean_loss, r.seconds,
                format_duration(elapsed).c_str(), format_duration(eta).c_str(), prover_epochs_after(r.epoch).c_str());
  *out_ << line;
  if (r.recall_probes > 0) *out_ << "  recall@1 " << r.recall_at_1 << " (" << r.recall_probes << " probes, " << index << ")";
  *out_ << r.note << "\n";
  if (options_.profile) *out_ << describe(r.time, r.seconds);
  *out_ << std::flush;
}

void ProgressPrinter::stopped(int epoch, std::size_t steps_run, const TimeSplit& time, double seconds) {
  if (!out_) return;
  *out_ << (options_.progress_inline ? "\n" : "");
  if (options_.profile && steps_run > 0)
    *out_ << describe(time, seconds, "time of epoch " + std::to_string(epoch) + "'s " + std::to_string(steps_run) +
                                         " steps run");
  *out_ << std::flush;
}

}  // namespace ntp

