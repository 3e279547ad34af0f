// ntp/train/shared_gradient.h: one training step shared by a group of
// processes (`mpirun -np R ntp train`, ProcessShare).
//
// Every process holds the whole model and draws the whole batch (the same
// seed, the same goals); it proves and differentiates only its share of the
// goals (every count-th, share_items: a fact's corruptions, which cost about
// what it costs, are spread over the processes, which wait for the slowest
// at every step), its loss weighted by the share's part of the batch so
// that the shares' gradients add up to the batch's. The rows of the trained
// tables that got a gradient travel as bytes (sparse: a row index and the
// row); every process adds every process's rows in process order, so all of
// them hold the same sum, make the same update, tell their fact index the
// same rows moved, and so hold the same model after every step.
//
// The sum is the batch's gradient, but not to the last bit of one process's:
// a row used by goals of two shares gets their contributions summed as two
// partial sums, where one process sums them one by one on its tape, and
// floating-point addition is not associative. The difference is a rounding
// (about 1e-16 of a gradient a step); it is not zero, so a group's model is
// not byte-identical to one process's, only close (tests/mpi, test_shared_gradient).
#pragma once

#include "autodiff/tape.h"
#include "ntp/kb/process_share.h"
#include "ntp/train/batch.h"

#include <cstddef>
#include <vector>

namespace ntp {

// The goals (and labels) of `batch` that `share` proves (share_items), in
// whole groups of `group` consecutive goals: the ranking proof loss compares
// a positive with its own corruptions, so they must be proven together.
StepGoals share_of(const StepGoals& batch, const ProcessShare& share, std::size_t group = 1);
// The positives of a 1-vs-all step that `share` proves (share_items).
std::vector<Atom> share_of(const std::vector<Atom>& positives, const ProcessShare& share);

// The part of a whole that `share`'s loss stands for: its items over all of them.
double share_weight(std::size_t share_items, std::size_t all_items);

// The gradient rows of `tables` and `share_loss` (this process's weighted
// loss), as bytes, and every process's added into `tables` in process order
// (collective); returns the summed loss. *sent (if given) gets the bytes
// this process sent. Throws std::runtime_error on bytes that do not fit the
// tables (another build, another model).
double sum_over_group(const ProcessShare& share, const std::vector<ad::Parameter*>& tables, double share_loss,
                      std::size_t* sent = nullptr);

// The encoding, for tests: a loss and the touched rows of each table.
Bytes encode_gradient(const std::vector<ad::Parameter*>& tables, double loss);
// Adds the rows of `bytes` into `tables` (accumulate_row); returns the loss.
double add_gradient(const Bytes& bytes, const std::vector<ad::Parameter*>& tables);

}  // namespace ntp
