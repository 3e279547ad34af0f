// tools/fuzz/fuzz_load_model.cpp: libFuzzer target for load_model on bytes.
// Any input is refused with std::runtime_error (never bad_alloc: libFuzzer's
// -malloc_limit_mb turns a huge allocation into a finding) or gives a model
// whose rules, tables and vocabularies agree.
#include "ntp/model/model.h"
#include "tools/fuzz/fuzz.h"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(fuzz::text_of(data, size));
  try {
    const ntp::Model m = ntp::load_model(in, "fuzz.ntp");
    FUZZ_CHECK(m.predicates.value.cols() == m.dim && m.constants.value.cols() == m.dim);
    FUZZ_CHECK(m.constants.value.rows() == m.kb.constants.size());
    FUZZ_CHECK(m.num_kb_predicates == m.kb.predicates.size());
    for (const ntp::Rule& rule : m.rules) {
      FUZZ_CHECK(rule.head.predicate.id >= 0 && rule.head.predicate.id < m.predicates.value.rows());
      (void)ntp::to_string(m, rule);  // every name the rule refers to exists
    }
    for (const ntp::Atom& f : m.kb.facts) (void)ntp::to_string(m.kb, f);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
