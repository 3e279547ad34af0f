// ntp/train/non_finite_error.h: what training throws when a step's loss or an
// embedding it moved is NaN or infinite. Training stops there, naming the
// epoch and step (1-based); the model is left as it is for the caller, which
// must not save it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ntp {

struct NonFiniteError : std::runtime_error {
  NonFiniteError(int epoch, std::size_t step, const std::string& what)
      : std::runtime_error("training stopped at epoch " + std::to_string(epoch) + ", step " + std::to_string(step) +
                           ": " + what + " (try a smaller learning rate or gradient clip; the model was not saved)"),
        epoch(epoch),
        step(step) {}
  int epoch;
  std::size_t step;
};

}  // namespace ntp
