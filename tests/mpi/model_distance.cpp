// model_distance A B [TOLERANCE]: the largest difference between two models'
// parameters, table by table (the KB's symbols, shapes and settings must be
// the same). Exits 1 when it exceeds TOLERANCE (default 0: the same values),
// 2 when the models cannot be compared. For tests/mpi/shared_training.sh: a
// group's model is one process's up to rounding (ntp/train/shared_gradient.h).
#include "ntp/model/model.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace {

// The largest |a - b| over the two tables; throws if their shapes differ.
double table_distance(const ad::Parameter& a, const ad::Parameter& b, const char* what) {
  if (a.value.rows() != b.value.rows() || a.value.cols() != b.value.cols())
    throw std::runtime_error(std::string(what) + ": the shapes differ");
  if (a.value.size() == 0) return 0;
  return (a.value - b.value).cwiseAbs().maxCoeff();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: model_distance A B [TOLERANCE]\n");
    return 2;
  }
  try {
    const ntp::Model a = ntp::load_model(argv[1]), b = ntp::load_model(argv[2]);
    const double tolerance = argc > 3 ? std::strtod(argv[3], nullptr) : 0.0;
    if (a.kb.constants.names() != b.kb.constants.names() || a.kb.predicates.names() != b.kb.predicates.names())
      throw std::runtime_error("the models' symbols differ");
    const std::vector<std::pair<const char*, double>> tables = {
        {"predicates", table_distance(a.predicates, b.predicates, "predicates")},
        {"constants", table_distance(a.constants, b.constants, "constants")},
        {"rule attention", table_distance(a.rule_attention, b.rule_attention, "rule attention")},
        {"reformulator", table_distance(a.conditioning.weights, b.conditioning.weights, "reformulator")},
        {"words", table_distance(a.mentions.table, b.mentions.table, "words")}};
    double largest = 0;
    for (const auto& [name, distance] : tables) largest = std::max(largest, distance);
    std::printf("largest parameter difference %.3g (predicates %.3g, constants %.3g)\n", largest, tables[0].second,
                tables[1].second);
    return largest <= tolerance ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "model_distance: %s\n", e.what());
    return 2;
  }
}
