// Shared by the ntp tests: checks the gradients that a backward pass left in
// a model's embedding tables (and its rule attention logits, reformulator
// weights and word table, if any) against central finite differences of `loss`, entry by
// entry (double precision; inputs must be away from kinks).
#pragma once

#include "ntp/model/model.h"

#include <doctest/doctest.h>

#include <functional>

inline void check_table_gradients(ntp::Model& m, const std::function<double()>& loss) {
  for (ad::Parameter* table : {&m.predicates, &m.constants, &m.rule_attention, &m.conditioning.weights, &m.mentions.table})
    for (ad::Index i = 0; i < table->value.size(); ++i) {
      double& x = table->value.data()[i];
      const double saved = x, eps = 1e-6;
      x = saved + eps;
      const double up = loss();
      x = saved - eps;
      const double down = loss();
      x = saved;
      CAPTURE(table->name);
      CAPTURE(i);
      CHECK(table->grad.data()[i] == doctest::Approx((up - down) / (2 * eps)).epsilon(1e-5).scale(1e-3));
    }
}
