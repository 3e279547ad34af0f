// A ranking shared by a group of processes (eval/shards.h), the group played
// by one process: each share ranked apart, its sides gathered as the `ntp`
// command's MPI transport would hand them over, must give the figures and
// the ranks file of one process ranking every triple.
#include "ntp/eval/protocol.h"
#include "ntp/eval/shards.h"
#include "ntp/kb/text.h"
#include "ntp/mine/miner.h"
#include "ntp/mine/rules_file.h"
#include "ntp/kb/parse.h"

#include "kb_from_text.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace {

// A random KB of three relations over 12 constants, with an inverse and a
// chain template, and `count` test facts of its symbols (none a KB fact).
struct RandomKb {
  ntp::KnowledgeBase kb;
  std::string test_text;
};

RandomKb random_kb(std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> constant(0, 11), relation(0, 2);
  std::ostringstream facts, test;
  for (int i = 0; i < 60; ++i)
    facts << "r" << relation(rng) << "(c" << constant(rng) << ", c" << constant(rng) << ").\n";
  RandomKb out;
  out.kb = kb_from_text(facts.str(), "1 #1(X, Y) :- #2(Y, X).\n1 #1(X, Y) :- #2(X, Z), #3(Z, Y).\n");
  for (int written = 0; written < count;) {
    const std::string atom = "r" + std::to_string(relation(rng)) + "(c" + std::to_string(constant(rng)) + ", c" +
                             std::to_string(constant(rng)) + ")";
    if (out.kb.contains(ntp::parse_atom(atom, out.kb))) continue;
    test << atom << ".\n";
    ++written;
  }
  out.test_text = test.str();
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The report and ranks file of `q` ranked as `count` processes would: each
// share apart (the last's all_gather returning what the others sent), the
// report of process 0.
std::pair<ntp::EvalReport, std::string> ranked_in_shards(const ntp::Model& model, ntp::EvalRequest q, int count,
                                                         const std::string& ranks) {
  std::vector<std::vector<unsigned char>> sent(static_cast<std::size_t>(count));
  for (int index = count - 1; index >= 0; --index) {
    q.shard.index = index;
    q.shard.count = count;
    q.ranks = ranks;
    q.shard.all_gather = [&sent, index](const std::vector<unsigned char>& mine) {
      sent[static_cast<std::size_t>(index)] = mine;
      return sent;  // process 0 goes last: by then every share is in
    };
    const ntp::EvalReport report = ntp::evaluate(model, q);
    if (index == 0) return {report, read_all(ranks)};
    CHECK_FALSE(std::filesystem::exists(ranks));  // only process 0 writes it
  }
  return {};
}

}  // namespace

TEST_CASE("a ranking shared by 2, 3 or 7 processes gives one process's figures and ranks file") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string test = (dir / "ntp_shards_test.nl").string(), ranks = (dir / "ntp_shards_ranks.tsv").string();
  const std::string rules = (dir / "ntp_shards_rules.tsv").string();
  for (std::uint64_t seed : {1u, 2u}) {
    RandomKb r = random_kb(seed, 5);
    std::ofstream(test) << r.test_text;
    ntp::ProverConfig prover;
    prover.complex = seed == 2;  // NTPλ on the second KB
    prover.combine = ntp::Combine::Mean;
    const ntp::Model model = ntp::make_model(r.kb, 6, prover, seed);
    ntp::save_mined_rules(rules, model.kb, ntp::mine_rules(model.kb).rules);
    for (const bool by_rules : {false, true}) {
      CAPTURE(seed);
      CAPTURE(by_rules);
      ntp::EvalRequest q;
      q.protocol = "ranking";
      q.test = test;
      if (by_rules) q.rules = rules, q.rule_ties = "model";
      q.ranks = ranks;
      const ntp::EvalReport whole = ntp::evaluate(model, q);
      const std::string whole_ranks = read_all(ranks);
      std::filesystem::remove(ranks);
      REQUIRE(whole_ranks.size() > 100);
      for (int count : {2, 3, 7}) {  // 7 processes for 5 triples: two rank none
        CAPTURE(count);
        const auto [report, ranks_text] = ranked_in_shards(model, q, count, ranks);
        std::filesystem::remove(ranks);
        CHECK(report.json == whole.json);
        CHECK(report.lines == whole.lines);
        CHECK(ranks_text == whole_ranks);
      }
    }
  }
  std::filesystem::remove(test);
  std::filesystem::remove(rules);
}

TEST_CASE("ranked sides travel as bytes and back; a bad share or a short message is refused") {
  ntp::SideRank a;
  a.triple = 7, a.side = 1, a.mean = 2.5, a.optimistic = 2, a.scored = 3, a.corruptions = 11, a.tied = true;
  ntp::SideRank b;
  b.triple = 1u << 20, b.mean = 1, b.optimistic = 1, b.tied_on_score = true;
  const std::vector<unsigned char> bytes = ntp::encode_sides({a, b});
  const std::vector<ntp::SideRank> back = ntp::decode_sides(bytes);
  REQUIRE(back.size() == 2);
  CHECK(back[0].triple == 7);
  CHECK(back[0].side == 1);
  CHECK(back[0].mean == 2.5);
  CHECK(back[0].optimistic == 2);
  CHECK(back[0].scored == 3);
  CHECK(back[0].corruptions == 11);
  CHECK(back[0].tied);
  CHECK_FALSE(back[0].tied_on_score);
  CHECK(back[1].triple == (1u << 20));
  CHECK(back[1].tied_on_score);
  CHECK_THROWS_AS(ntp::decode_sides(std::vector<unsigned char>(bytes.begin(), bytes.end() - 1)), std::runtime_error);
  ntp::ProcessShare bad;
  bad.index = 2, bad.count = 2;
  CHECK_THROWS_AS(ntp::check_share(bad), std::invalid_argument);
  bad.index = 0;  // a group of two with no transport
  CHECK_THROWS_AS(ntp::check_share(bad), std::invalid_argument);
  CHECK(ntp::share_items(7, ntp::ProcessShare{1, 3, nullptr}) == std::vector<std::size_t>{1, 4});
}
