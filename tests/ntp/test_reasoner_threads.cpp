// One Reasoner asked from many threads at once gives the answers it gives to
// one thread: its fact index is built once and shared, and no call changes
// it. Run under ThreadSanitizer by `make test-tsan`.
#include "ntp/ntp.h"
#include "ntp/model/model.h"
#include "ntp/train/new_model.h"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::string kFamily = std::string(NTP_SOURCE_DIR) + "/datasets/family";

// The first `n` atoms of the family KB's test file, as text.
std::vector<std::string> test_atoms(std::size_t n) {
  std::ifstream in(kFamily + "/test.nl");
  std::vector<std::string> atoms;
  for (std::string line; atoms.size() < n && std::getline(in, line);)
    if (!line.empty() && line[0] != '%') atoms.push_back(line.substr(0, line.find_last_of(')') + 1));
  return atoms;
}

// One call of each kind, its result as text (JSON, or the scores written out).
std::string ask(const ntp::Reasoner& r, const std::string& atom, int kind) {
  switch (kind % 3) {
    case 0: return ntp::to_json(r.prove(atom, 2));
    case 1: {
      const std::string query = atom.substr(0, atom.find(',')) + ", X)";  // p(a, b) -> p(a, X)
      return ntp::to_json(query, r.answer(query, 3));
    }
    default: {
      std::string s;
      for (double v : r.score({atom, atom})) s += ntp::format_number(v) + " ";
      return s;
    }
  }
}

}  // namespace

TEST_CASE("8 threads of mixed prove, answer and score calls on one Reasoner give one thread's answers") {
  const std::vector<std::string> atoms = test_atoms(24);
  REQUIRE(atoms.size() == 24);
  for (const std::string index : {"table", "hnsw", "brute"}) {
    CAPTURE(index);
    ntp::ModelOptions options;
    options.dim = 16;
    options.seed = 5;
    options.prover.index = index;
    const ntp::Reasoner reasoner(
        ntp::new_model(ntp::read_training_data(kFamily + "/train.nl", kFamily + "/family.nlt"), options));
    std::vector<std::string> expected;  // call i asks atoms[i] with kind i % 3
    const int calls = 24;
    for (int i = 0; i < calls; ++i) expected.push_back(ask(reasoner, atoms[static_cast<std::size_t>(i) % atoms.size()], i));

    const int threads = 8;
    std::vector<std::vector<std::string>> got(threads, std::vector<std::string>(calls));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int n = 0; n < calls; ++n) {
          const int i = (n * 5 + t * 7) % calls;  // each thread its own order
          got[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] =
              ask(reasoner, atoms[static_cast<std::size_t>(i) % atoms.size()], i);
        }
      });
    for (std::thread& th : pool) th.join();
    for (int t = 0; t < threads; ++t)
      for (int i = 0; i < calls; ++i) {
        CAPTURE(t);
        CAPTURE(i);
        CHECK(got[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] == expected[static_cast<std::size_t>(i)]);
      }
  }
}
