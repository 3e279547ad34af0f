// tests/ntp/test_model.cpp: the model file under damage and faults: counts
// near the integer limits refused before they allocate, unseekable streams,
// inconsistent contents, make_model's size limits, and a save killed
// (SIGKILL) at random points leaving a loadable model behind.
#include "ntp/kb/limits.h"
#include "ntp/model/model.h"
#include "ntp/kb/parse.h"
#include "tests/memory_limit.h"
#include "tests/pipe_buffer.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

namespace {

// A KB of `n` constants in a chain p(c0, c1), p(c1, c2), ... plus q(c0, c0),
// with the template `2 #1(X, Y) :- #2(Y, X).`
ntp::KnowledgeBase chain_kb(int n) {
  ntp::KnowledgeBase kb;
  std::ostringstream text;
  for (int i = 0; i + 1 < n; ++i) text << "p(c" << i << ", c" << i + 1 << ").\n";
  text << "q(c0, c0).\n";
  std::istringstream facts(text.str());
  for (const ntp::Atom& a : ntp::read_facts_nl(facts, "chain.nl", kb, ntp::NewSymbols::Allow)) kb.add_fact(a);
  std::istringstream tpl("2 #1(X, Y) :- #2(Y, X).\n");
  kb.templates = ntp::read_templates_nlt(tpl, "chain.nlt", kb);
  return kb;
}

std::string bytes_of(const ntp::Model& m, const std::string& path) {
  ntp::save_model(m, path);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return bytes;
}

std::string bytes_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::int32_t int_at(const std::string& bytes, std::size_t offset) {
  std::int32_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// `bytes` with the int32 at `offset` (which must hold `old`) set to `value`.
std::string patched(std::string bytes, std::size_t offset, std::int32_t old, std::int32_t value) {
  REQUIRE_MESSAGE(int_at(bytes, offset) == old, "the model file layout changed: offset " << offset);
  std::memcpy(&bytes[offset], &value, sizeof value);
  return bytes;
}

ntp::Model load_bytes(const std::string& bytes) {
  std::istringstream in(bytes);
  return ntp::load_model(in, "m.ntp");
}

}  // namespace

TEST_CASE("load_model refuses counts near the integer limits before allocating") {
  // 3 constants, dim 4: every table is tiny, so anything big is a damaged count.
  ntp::KnowledgeBase kb = chain_kb(3);
  const ntp::Model model = ntp::make_model(kb, 4, ntp::ProverConfig{}, 1);
  const std::string bytes = bytes_of(model, std::string(NTP_BINARY_DIR) + "/test_model_limits.ntp");
  REQUIRE(load_bytes(bytes).constants.value == model.constants.value);

  // Offsets of the int32 counts (format version 7): magic 8, version 4,
  // depth/k/k-rules 12, index "auto" 4 + 4, complex 4, combine 4, dim 4, P 4,
  // then the vocabularies p q | c0 c1 c2, the facts, one template, the filter
  // facts, the three tables, the reformulator kind and its table, and at the
  // end the template's slot starts (a count, 0), its mined confidence (8
  // bytes), k for open atoms, the mined rules' weight (8 bytes) and their count.
  const std::size_t mined_rules = bytes.size() - 4;
  const std::size_t slot_starts = mined_rules - 8 - 4 - 8 - 4;
  const std::size_t reformulator_table = slot_starts - 8;  // (0, 0): no conditional rules
  const std::size_t attention_table = reformulator_table - 4 - 8;  // (0, 0): no rule attention
  const std::size_t constants_table = attention_table - 3 * 4 * 8 - 8;
  const std::size_t predicates_table = constants_table - 6 * 4 * 8 - 8;  // 2 predicates + 2 copies x 2 slots
  struct Field {
    const char* name;
    std::size_t offset;
    std::int32_t value;
  };
  const std::vector<Field> fields = {
      {"index name length", 24, 4},
      {"predicate vocabulary size", 48, 2},
      {"first predicate name length", 52, 1},
      {"constant vocabulary size", 62, 3},
      {"first constant name length", 66, 2},
      {"fact count", 84, 3},
      {"first fact's arity", 92, 2},
      {"template count", 88 + 3 * 16, 1},  // after 3 facts of 16 bytes
      {"head arity", 88 + 3 * 16 + 12, 2},
      {"filter fact count", predicates_table - 4, 0},
      {"predicate table rows", predicates_table, 6},
      {"predicate table columns", predicates_table + 4, 4},
      {"constant table rows", constants_table, 3},
      {"constant table columns", constants_table + 4, 4},
      {"attention table rows", attention_table, 0},
      {"attention table columns", attention_table + 4, 0},
      {"reformulator", reformulator_table - 4, 0},
      {"reformulator table rows", reformulator_table, 0},
      {"reformulator table columns", reformulator_table + 4, 0},
      {"slot start count", slot_starts, 0},
      {"mined rule count", mined_rules, 0},
  };
  const std::int32_t big[] = {std::numeric_limits<std::int32_t>::min(),  // 2^31 as unsigned
                              -1, std::numeric_limits<std::int32_t>::max(), 1 << 28, (1 << 28) + 1, 1 << 20};
  MemoryLimit limit(256 << 20);
  if (kMemoryLimitWorks) {
    REQUIRE(limit.active());
    REQUIRE(allocation_fails(std::size_t{1} << 30));  // the limit bites, so the checks below can fail
  }
  for (const Field& f : fields) {
    for (const std::int32_t value : big) {
      CAPTURE(f.name);
      CAPTURE(value);
      const std::string damaged = patched(bytes, f.offset, f.value, value);
      CHECK_THROWS_AS(load_bytes(damaged), std::runtime_error);  // not std::bad_alloc
      PipeBuffer pipe(damaged);
      std::istream unseekable(&pipe);
      CHECK_THROWS_AS(ntp::load_model(unseekable, "pipe"), std::runtime_error);
    }
  }
}

TEST_CASE("a model keeps each combine rule, the ComplEx score alone too, and refuses one it does not know") {
  ntp::ProverConfig config;
  config.complex = true;
  ntp::Model model = ntp::make_model(chain_kb(3), 4, config, 1);
  for (const ntp::Combine rule : {ntp::Combine::Max, ntp::Combine::Mean, ntp::Combine::Proof, ntp::Combine::Complex}) {
    model.prover.combine = rule;
    const std::string bytes = bytes_of(model, std::string(NTP_BINARY_DIR) + "/test_model_combine.ntp");
    CHECK(load_bytes(bytes).prover.combine == rule);
    // Offset of the combine rule (format version 7): magic 8, version 4,
    // depth/k/k-rules 12, index "auto" 4 + 4, complex 4.
    if (rule == ntp::Combine::Complex)
      CHECK_THROWS_WITH_AS(load_bytes(patched(bytes, 36, 3, 4)), doctest::Contains("combine rule 4"), std::runtime_error);
  }
}

TEST_CASE("load_model reads a stream that cannot seek") {
  const ntp::Model model = ntp::make_model(chain_kb(5), 4, ntp::ProverConfig{}, 1);
  PipeBuffer pipe(bytes_of(model, std::string(NTP_BINARY_DIR) + "/test_model_pipe.ntp"));
  std::istream unseekable(&pipe);
  const ntp::Model loaded = ntp::load_model(unseekable, "pipe");
  CHECK(loaded.constants.value == model.constants.value);
  CHECK(loaded.predicates.value == model.predicates.value);
  CHECK(loaded.kb.facts == model.kb.facts);
}

TEST_CASE("load_model refuses contents the parsers never produce") {
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_model_contents.ntp";
  const ntp::Model good = ntp::make_model(chain_kb(4), 4, ntp::ProverConfig{}, 1);
  SUBCASE("a predicate used with two arities") {
    ntp::Model m = good;
    m.kb.add_fact({0, {0, 1, 2}});  // p has 2 arguments in the other facts
    CHECK_THROWS_WITH_AS(load_bytes(bytes_of(m, path)), doctest::Contains("predicate arities differ"),
                         std::runtime_error);
  }
  SUBCASE("a slot used with two arities in one template") {
    ntp::Model m = good;
    ntp::Template& t = m.kb.templates[0];  // #1(X, Y) :- #2(Y, X) becomes #1(X, Y) :- #1(Y)
    t.body[0].predicate = t.head.predicate;
    t.body[0].args.pop_back();
    CHECK_THROWS_WITH_AS(load_bytes(bytes_of(m, path)), doctest::Contains("predicate arities differ"),
                         std::runtime_error);
  }
  SUBCASE("an atom without arguments") {
    ntp::Model m = good;
    m.kb.add_fact({1, {}});
    CHECK_THROWS_WITH_AS(load_bytes(bytes_of(m, path)), doctest::Contains("atom without arguments"),
                         std::runtime_error);
  }
  SUBCASE("filter facts are only looked up: any arity loads") {
    ntp::Model m = good;
    m.filter_facts.push_back({0, {0, 1, 2}});
    CHECK(load_bytes(bytes_of(m, path)).filter_facts.size() == 1);
  }
  SUBCASE("names missing for a template's variables") {
    ntp::Model m = good;
    m.kb.templates[0].variable_names.pop_back();
    CHECK_THROWS_WITH_AS(load_bytes(bytes_of(m, path)), doctest::Contains("template counts"), std::runtime_error);
  }
}

TEST_CASE("make_model refuses tables beyond the limits before allocating them") {
  ntp::KnowledgeBase kb = chain_kb(3);
  CHECK_THROWS_WITH_AS(ntp::make_model(kb, ntp::kMaxDim + 1, ntp::ProverConfig{}, 0),
                       doctest::Contains("embedding dimension must be in [1, 65536], got 65537"),
                       std::invalid_argument);
  CHECK_THROWS_AS(ntp::make_model(kb, 0, ntp::ProverConfig{}, 0), std::invalid_argument);
  // 300 templates of a million copies with 2 slots each: 6e8 slot rows (more
  // than 2^28), and more than INT_MAX once counted over 1100 templates.
  for (const std::size_t templates : {std::size_t{300}, std::size_t{1100}}) {
    ntp::KnowledgeBase big = kb;
    big.templates.assign(templates, kb.templates[0]);
    for (ntp::Template& t : big.templates) t.copies = ntp::kMaxTemplateCopies;
    MemoryLimit limit(256 << 20);
    CHECK_THROWS_WITH_AS(ntp::make_model(big, 4, ntp::ProverConfig{}, 0),
                         doctest::Contains("predicates and rule slots (expected at most 268435456)"),
                         std::invalid_argument);
  }
}

TEST_CASE("a save killed (SIGKILL) at any point leaves the previous or the new model at the path") {
  // Two models of one KB that differ in their embeddings; ~1.5 MB each, so a
  // save takes long enough to be killed inside.
  const ntp::KnowledgeBase kb = chain_kb(3000);
  const ntp::Model first = ntp::make_model(kb, 64, ntp::ProverConfig{}, 1);
  const ntp::Model second = ntp::make_model(kb, 64, ntp::ProverConfig{}, 2);
  const std::string path = std::string(NTP_BINARY_DIR) + "/test_model_killed.ntp";
  const auto start = std::chrono::steady_clock::now();
  ntp::save_model(first, path);
  const double save_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();

  std::mt19937 rng(7);
  std::uniform_real_distribution<double> delay(0.0, 3.0 * save_us);  // kills land anywhere in the first saves
  int inside_a_save = 0;
  const int trials = 40;
  for (int trial = 0; trial < trials; ++trial) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // save the two models in turn until killed
      for (int i = 0;; ++i) ntp::save_model(i % 2 == 0 ? second : first, path);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(delay(rng))));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(WIFSIGNALED(status));  // the child was killed, it did not fail on its own
    if (std::ifstream(path + ".tmp")) ++inside_a_save;
    CAPTURE(trial);
    const ntp::Model loaded = ntp::load_model(path);  // throws if the file at the path is damaged
    CHECK((loaded.constants.value == first.constants.value || loaded.constants.value == second.constants.value));
    CHECK(loaded.predicates.value.rows() == first.predicates.value.rows());
  }
  MESSAGE("SIGKILL during save: " << inside_a_save << " of " << trials << " kills left a half-written " << path
                                  << ".tmp; one save takes " << save_us / 1000 << " ms");
  CHECK(inside_a_save > 0);  // some kills did land inside a save
  std::remove(path.c_str());
  std::remove((path + ".tmp").c_str());
}

TEST_CASE("a save onto a full file system fails naming the file and the cause, and keeps the previous model") {
  // A 256 KiB tmpfs holds the previous model (~50 KB) and a filler that leaves
  // too little room for the new one. Mounting needs root (CI runs as root).
  char dir_template[] = "/tmp/ntp_full_disk_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  if (mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=256k") != 0) {
    rmdir(dir.c_str());
    MESSAGE("skipped: cannot mount a tmpfs (" << std::strerror(errno) << "; needs root)");
    return;
  }
  const ntp::KnowledgeBase kb = chain_kb(200);
  const ntp::Model previous = ntp::make_model(kb, 32, ntp::ProverConfig{}, 1);
  const ntp::Model next = ntp::make_model(kb, 32, ntp::ProverConfig{}, 2);
  const std::string path = dir + "/m.ntp";
  ntp::save_model(previous, path);
  const std::string previous_bytes = bytes_of_file(path);
  {  // fill all but a few KiB
    struct statvfs fs {};
    REQUIRE(statvfs(dir.c_str(), &fs) == 0);
    const std::size_t free_bytes = static_cast<std::size_t>(fs.f_bavail) * fs.f_frsize;
    REQUIRE(free_bytes > 8192);
    std::ofstream(dir + "/filler", std::ios::binary) << std::string(free_bytes - 8192, '\0');
  }
  std::string error;
  try {
    ntp::save_model(next, path);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  CHECK(error.find(path + ".tmp") != std::string::npos);
  CHECK(error.find(std::strerror(ENOSPC)) != std::string::npos);
  CHECK(bytes_of_file(path) == previous_bytes);
  CHECK(!std::ifstream(path + ".tmp"));  // nothing half-written is left
  umount(dir.c_str());
  rmdir(dir.c_str());
}
