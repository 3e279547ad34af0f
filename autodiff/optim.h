// autodiff/optim.h: optimisers that update only the rows of a Parameter that
// the last batch touched (its sparse row gradient).
//
// A step, for every touched row r of every parameter:
//   g = grad[r] + l2 * value[r]        L2 regularisation, on touched rows only
//   g = clamp(g, -clip, clip)          element-wise clipping (NTP clips at ±1)
//   value[r] -= update(g)              SGD, AdaGrad or Adam
// and then the gradient is cleared. Regularising touched rows only keeps a
// step's cost proportional to the batch, not to the size of the tables
// (lazy regularisation, as sparse optimisers commonly do).
#pragma once

#include "autodiff/tape.h"

#include <memory>
#include <utility>
#include <vector>

namespace ad {

struct OptimizerOptions {
  Scalar learning_rate = 1e-3;
  Scalar l2 = 0;         // coefficient of 0.5 * l2 * ‖row‖² added to the loss
  Scalar clip = 0;       // element-wise gradient clip; 0 turns it off
  Scalar beta1 = 0.9;    // Adam
  Scalar beta2 = 0.999;  // Adam
  Scalar epsilon = 1e-8; // Adam, AdaGrad
};

class Optimizer {
 public:
  explicit Optimizer(OptimizerOptions options) : options_(options) {}
  virtual ~Optimizer() = default;
  // Applies one update to every touched row of `params` and clears their gradients.
  void step(const std::vector<Parameter*>& params);
  const OptimizerOptions& options() const { return options_; }
  // The L2 coefficient of the parameter at `slot` in the lists step() is
  // given, instead of options().l2 (as an optimiser's parameter groups do:
  // a model's tables need not be regularised alike). Throws
  // std::invalid_argument for a negative coefficient.
  void set_l2(std::size_t slot, Scalar l2);
  // What the optimiser has accumulated (Adam's moments and per-row step
  // counts, AdaGrad's sums of squares) as matrices, so that a checkpoint can
  // resume training exactly where it stopped. Moved out, not copied: a large
  // table's moments are twice its size. The optimiser then holds nothing (a
  // step would start afresh) until set_state gives them back; set_state takes
  // what take_state gave, and throws std::invalid_argument for anything else.
  virtual std::vector<Matrix> take_state() { return {}; }
  virtual void set_state(std::vector<Matrix> state);

 protected:
  // Updates one row given its regularised, clipped gradient `g` (1, dim).
  // `slot` numbers the parameter within the list passed to step().
  virtual void update_row(std::size_t slot, Parameter& p, Index row, const Matrix& g) = 0;
  OptimizerOptions options_;
  std::vector<Scalar> l2_;  // per slot; a negative entry: options_.l2
};

class Sgd : public Optimizer {
 public:
  using Optimizer::Optimizer;
 protected:
  void update_row(std::size_t slot, Parameter& p, Index row, const Matrix& g) override;
};

// AdaGrad: per-element accumulated squared gradients.
class AdaGrad : public Optimizer {
 public:
  using Optimizer::Optimizer;
  std::vector<Matrix> take_state() override;  // per parameter slot
  void set_state(std::vector<Matrix> state) override;
 protected:
  void update_row(std::size_t slot, Parameter& p, Index row, const Matrix& g) override;
 private:
  std::vector<Matrix> sum_squares_;  // per parameter, (rows, dim)
};

// Adam with lazy per-row moments: a row's moments decay only when the row is
// touched, and its bias correction uses the row's own step count.
class Adam : public Optimizer {
 public:
  using Optimizer::Optimizer;
  // Per parameter slot: first moments, second moments, step counts (rows, 1).
  std::vector<Matrix> take_state() override;
  void set_state(std::vector<Matrix> state) override;
 protected:
  void update_row(std::size_t slot, Parameter& p, Index row, const Matrix& g) override;
 private:
  struct Moments {
    Matrix first, second;            // (rows, dim)
    std::vector<long long> steps;    // (rows), updates seen by each row
  };
  std::vector<Moments> moments_;     // per parameter slot
  // 1 - β1^t and 1 - β2^t for t = 0, 1, ...: a step updates thousands of
  // rows (a reformulator's weights), most with the same few counts, and
  // std::pow per row was a tenth of the optimiser's time.
  std::pair<Scalar, Scalar> bias_corrections(long long step);
  std::vector<std::pair<Scalar, Scalar>> corrections_;
};

// "sgd", "adagrad" or "adam"; throws std::invalid_argument otherwise.
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, OptimizerOptions options);

}  // namespace ad
