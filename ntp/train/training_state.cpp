// ntp/train/training_state.cpp: random generators' states as text (see training_state.h).
#include "ntp/train/training_state.h"

#include <sstream>
#include <stdexcept>

namespace ntp {

std::string rng_state_text(const std::mt19937_64& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

void restore_rng_state(std::mt19937_64& rng, const std::string& text) {
  std::istringstream in(text);
  in >> rng;
  if (!in) throw std::invalid_argument("training state: a random generator's state is damaged");
}

}  // namespace ntp
