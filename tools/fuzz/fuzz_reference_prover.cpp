// tools/fuzz/fuzz_reference_prover.cpp: libFuzzer target that checks
// ntp::Prover against the reference prover (tests/ntp/reference_prover.h).
// The input bytes are a list of choices: the depth, a small KB with rule
// templates, the goals, then the embeddings, one byte per entry on a coarse
// grid in [-1, 1) (entries past the input's end keep make_model's values), so
// that equal kernels and tied proofs are common. Every check of
// reference_prover_check.h must pass for k = 0 and k = the number of facts.
#include "tests/ntp/reference_prover_cases.h"
#include "tests/ntp/reference_prover_check.h"
#include "tools/fuzz/fuzz.h"

namespace {

// The input as a stream of choices; 0 once it is used up.
class Choices {
 public:
  Choices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  int operator()(int n) { return next_ < size_ ? data_[next_++] % n : 0; }
  bool empty() const { return next_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_, next_ = 0;
};

// Small enough for thousands of executions a second: enumerating every
// proof is the reference's whole method.
constexpr double kProofBudget = 200;

reference::CaseSizes fuzz_sizes(int depth) {
  reference::CaseSizes sizes;
  sizes.min_predicates = 1;
  sizes.max_predicates = 4;
  sizes.min_constants = 1;
  sizes.max_constants = 6;
  sizes.min_facts = 1;
  sizes.max_facts = depth == 2 ? 6 : 12;
  sizes.min_templates = 0;
  sizes.max_templates = depth == 2 ? 2 : 3;
  sizes.max_copies = depth == 2 ? 1 : 2;
  return sizes;
}

void embeddings_from(Choices& draw, ad::Parameter& table) {
  for (ad::Index i = 0; i < table.value.size() && !draw.empty(); ++i)
    table.value.data()[i] = (draw(256) - 128) / 128.0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Choices draw(data, size);
  const int depth = draw(3);
  const int dim = 1 + draw(3);
  const reference::Case c = reference::draw_case(draw, fuzz_sizes(depth));
  ntp::Model model = reference::case_model(c, dim, 0);
  const int affordable = reference::affordable_goals(model, depth, kProofBudget, 1 + draw(8));
  if (affordable == 0) return 0;  // too many proofs to enumerate quickly
  const std::vector<ntp::Goal> goals = reference::draw_goals(draw, model, affordable);
  embeddings_from(draw, model.predicates);
  embeddings_from(draw, model.constants);
  const reference::Answers answers = reference::answer(model, depth, goals);
  for (int k : {0, static_cast<int>(model.kb.facts.size())}) {
    ntp::ProverConfig config;
    config.depth = depth;
    config.k_facts = k;
    int gradients = 0;
    const std::string error = reference::check_prover(model, goals, answers, config, "table", &gradients);
    if (!error.empty()) {
      std::fprintf(stderr, "prover and reference disagree at depth %d: %s\nfacts:\n%stemplates:\n%s", depth,
                   error.c_str(), c.facts.c_str(), c.templates.c_str());
      std::abort();
    }
  }
  return 0;
}
