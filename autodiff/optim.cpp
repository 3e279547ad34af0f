// autodiff/optim.cpp: SGD, AdaGrad and Adam over the touched rows of
// Parameters (see optim.h for the shared step: L2, clipping, update, clear).
#include "autodiff/optim.h"

#include <cmath>
#include <stdexcept>

namespace ad {

void Optimizer::step(const std::vector<Parameter*>& params) {
  Matrix g;
  for (std::size_t slot = 0; slot < params.size(); ++slot) {
    Parameter& p = *params[slot];
    g.resize(1, p.value.cols());
    const Scalar l2 = slot < l2_.size() && l2_[slot] >= 0 ? l2_[slot] : options_.l2;
    for (Index row : p.touched) {
      g = p.grad.row(row) + l2 * p.value.row(row);
      if (options_.clip > 0) g = g.cwiseMax(-options_.clip).cwiseMin(options_.clip);
      update_row(slot, p, row, g);
    }
    p.clear_grad();
  }
}

void Optimizer::set_l2(std::size_t slot, Scalar l2) {
  if (!(l2 >= 0)) throw std::invalid_argument("set_l2: the L2 coefficient must be >= 0, got " + std::to_string(l2));
  if (l2_.size() <= slot) l2_.resize(slot + 1, -1);
  l2_[slot] = l2;
}

// value -= lr g
void Sgd::update_row(std::size_t, Parameter& p, Index row, const Matrix& g) {
  p.value.row(row) -= options_.learning_rate * g;
}

// s += g²;  value -= lr g / (√s + ε)
void AdaGrad::update_row(std::size_t slot, Parameter& p, Index row, const Matrix& g) {
  if (sum_squares_.size() <= slot) sum_squares_.resize(slot + 1);
  Matrix& s = sum_squares_[slot];
  if (s.rows() != p.value.rows() || s.cols() != p.value.cols())
    s.setZero(p.value.rows(), p.value.cols());
  s.row(row).array() += g.array().square();
  p.value.row(row).array() -=
      options_.learning_rate * g.array() / (s.row(row).array().sqrt() + options_.epsilon);
}

// With t the row's own step count:
//   m = β1 m + (1 - β1) g,  v = β2 v + (1 - β2) g²
//   value -= lr m̂ / (√v̂ + ε),  m̂ = m / (1 - β1^t),  v̂ = v / (1 - β2^t)
void Adam::update_row(std::size_t slot, Parameter& p, Index row, const Matrix& g) {
  if (moments_.size() <= slot) moments_.resize(slot + 1);
  Moments& m = moments_[slot];
  if (m.first.rows() != p.value.rows() || m.first.cols() != p.value.cols()) {
    m.first.setZero(p.value.rows(), p.value.cols());
    m.second.setZero(p.value.rows(), p.value.cols());
    m.steps.assign(static_cast<std::size_t>(p.value.rows()), 0);
  }
  const OptimizerOptions& o = options_;
  const long long step = ++m.steps[static_cast<std::size_t>(row)];
  m.first.row(row) = o.beta1 * m.first.row(row) + (1 - o.beta1) * g;
  m.second.row(row) = o.beta2 * m.second.row(row) + (1 - o.beta2) * g.cwiseAbs2();
  const auto [c1, c2] = bias_corrections(step);
  p.value.row(row).array() -= o.learning_rate * (m.first.row(row).array() / c1) /
                              ((m.second.row(row).array() / c2).sqrt() + o.epsilon);
}

std::pair<Scalar, Scalar> Adam::bias_corrections(long long step) {
  for (auto t = static_cast<long long>(corrections_.size()); t <= step; ++t)
    corrections_.emplace_back(1 - std::pow(options_.beta1, static_cast<Scalar>(t)),
                              1 - std::pow(options_.beta2, static_cast<Scalar>(t)));
  return corrections_[static_cast<std::size_t>(step)];
}

void Optimizer::set_state(std::vector<Matrix> state) {
  if (!state.empty()) throw std::invalid_argument("optimiser state: this optimiser keeps none, got " +
                                                  std::to_string(state.size()) + " matrices");
}

std::vector<Matrix> AdaGrad::take_state() {
  std::vector<Matrix> out = std::move(sum_squares_);
  sum_squares_.clear();
  return out;
}

void AdaGrad::set_state(std::vector<Matrix> state) { sum_squares_ = std::move(state); }

std::vector<Matrix> Adam::take_state() {
  std::vector<Matrix> out;
  out.reserve(3 * moments_.size());
  for (Moments& m : moments_) {
    out.push_back(std::move(m.first));
    out.push_back(std::move(m.second));
    Matrix steps(static_cast<Index>(m.steps.size()), 1);
    for (std::size_t r = 0; r < m.steps.size(); ++r) steps(static_cast<Index>(r), 0) = static_cast<Scalar>(m.steps[r]);
    out.push_back(std::move(steps));  // exact: counts stay far below 2^53
  }
  moments_.clear();
  return out;
}

void Adam::set_state(std::vector<Matrix> state) {
  if (state.size() % 3 != 0)
    throw std::invalid_argument("Adam state: expected 3 matrices per parameter, got " + std::to_string(state.size()));
  moments_.clear();
  for (std::size_t i = 0; i < state.size(); i += 3) {
    Moments m;
    m.first = std::move(state[i]);
    m.second = std::move(state[i + 1]);
    const Matrix& steps = state[i + 2];
    if (m.second.rows() != m.first.rows() || m.second.cols() != m.first.cols() || steps.rows() != m.first.rows() ||
        (steps.size() > 0 && steps.cols() != 1))
      throw std::invalid_argument("Adam state: moment and step-count shapes differ");
    for (Index r = 0; r < steps.rows(); ++r) {
      if (!(steps(r, 0) >= 0)) throw std::invalid_argument("Adam state: a negative step count");
      m.steps.push_back(static_cast<long long>(steps(r, 0)));
    }
    moments_.push_back(std::move(m));
  }
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, OptimizerOptions options) {
  if (name == "sgd") return std::make_unique<Sgd>(options);
  if (name == "adagrad") return std::make_unique<AdaGrad>(options);
  if (name == "adam") return std::make_unique<Adam>(options);
  throw std::invalid_argument("make_optimizer: unknown optimiser '" + name +
                              "' (expected sgd, adagrad or adam)");
}

}  // namespace ad
