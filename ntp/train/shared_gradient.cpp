// ntp/train/shared_gradient.cpp: a step's gradient summed over a group (see shared_gradient.h).
//
// The bytes of one process: its weighted loss (double), then per table the
// number of rows (uint64) and each row as its index (int64) and its `cols`
// doubles.
#include "ntp/train/shared_gradient.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ntp {

StepGoals share_of(const StepGoals& batch, const ProcessShare& share, std::size_t group) {
  StepGoals mine;
  for (std::size_t g : share_items(batch.goals.size() / group, share))
    for (std::size_t i = g * group; i < (g + 1) * group; ++i) {
      mine.goals.push_back(batch.goals[i]);
      mine.labels.push_back(batch.labels[i]);
    }
  return mine;
}

std::vector<Atom> share_of(const std::vector<Atom>& positives, const ProcessShare& share) {
  std::vector<Atom> mine;
  for (std::size_t i : share_items(positives.size(), share)) mine.push_back(positives[i]);
  return mine;
}

double share_weight(std::size_t share_items, std::size_t all_items) {
  return static_cast<double>(share_items) / static_cast<double>(all_items);
}

Bytes encode_gradient(const std::vector<ad::Parameter*>& tables, double loss) {
  Bytes out;
  put_bytes<double>(out, loss);
  for (const ad::Parameter* table : tables) {
    put_bytes<std::uint64_t>(out, table->touched.size());
    for (ad::Index row : table->touched) {
      put_bytes<std::int64_t>(out, row);
      for (ad::Index c = 0; c < table->grad.cols(); ++c) put_bytes<double>(out, table->grad(row, c));
    }
  }
  return out;
}

namespace {

// Throws unless `bytes` after `at` hold at least `wanted` more.
void need(const Bytes& bytes, const unsigned char* at, std::size_t wanted) {
  const auto left = static_cast<std::size_t>(bytes.data() + bytes.size() - at);
  if (left < wanted)
    throw std::runtime_error("a gradient from another process ends early (" + std::to_string(bytes.size()) +
                             " bytes): not one of this model's");
}

}  // namespace

double add_gradient(const Bytes& bytes, const std::vector<ad::Parameter*>& tables) {
  const unsigned char* at = bytes.data();
  need(bytes, at, sizeof(double));
  const double loss = take_bytes<double>(at);
  ad::Matrix row;
  for (ad::Parameter* table : tables) {
    need(bytes, at, sizeof(std::uint64_t));
    const auto rows = take_bytes<std::uint64_t>(at);
    const ad::Index cols = table->grad.cols();
    row.resize(1, cols);
    for (std::uint64_t i = 0; i < rows; ++i) {
      need(bytes, at, sizeof(std::int64_t) + static_cast<std::size_t>(cols) * sizeof(double));
      const auto index = take_bytes<std::int64_t>(at);
      if (index < 0 || index >= table->grad.rows())
        throw std::runtime_error("a gradient from another process names row " + std::to_string(index) + " of " +
                                 table->name + ", which has " + std::to_string(table->grad.rows()));
      for (ad::Index c = 0; c < cols; ++c) row(0, c) = take_bytes<double>(at);
      table->accumulate_row(index, row);
    }
  }
  if (at != bytes.data() + bytes.size())
    throw std::runtime_error("a gradient from another process has bytes past its last table: not one of this model's");
  return loss;
}

double sum_over_group(const ProcessShare& share, const std::vector<ad::Parameter*>& tables, double share_loss,
                      std::size_t* sent) {
  const Bytes mine = encode_gradient(tables, share_loss);
  if (sent) *sent = mine.size();
  const std::vector<Bytes> all = share.all_gather(mine);
  for (ad::Parameter* table : tables) table->clear_grad();
  double loss = 0;
  for (const Bytes& theirs : all) loss += add_gradient(theirs, tables);
  return loss;
}

}  // namespace ntp
