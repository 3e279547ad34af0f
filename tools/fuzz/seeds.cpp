// tools/fuzz/seeds.cpp: writes the binary seed inputs of the load_model,
// load_checkpoint and hnsw_load fuzz targets (small models, a checkpoint and
// indices, in the current formats) to <dir>/load_model/, <dir>/load_checkpoint/
// and <dir>/hnsw_load/, and random byte strings, which that target reads as
// choices, to <dir>/reference_prover/. The text targets are seeded
// from the data files instead (tools/fuzz/run.sh).
#include "ann/hnsw.h"
#include "ann/synthetic.h"
#include "ntp/train/checkpoint.h"
#include "ntp/train/epochs.h"
#include "ntp/model/model.h"
#include "ntp/kb/parse.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace {

ntp::KnowledgeBase read_kb(const std::string& facts, const std::string& templates) {
  ntp::KnowledgeBase kb;
  std::istringstream f(facts), t(templates);
  for (const ntp::Atom& a : ntp::read_facts_nl(f, "seed.nl", kb, ntp::NewSymbols::Allow)) kb.add_fact(a);
  if (!templates.empty()) kb.templates = ntp::read_templates_nlt(t, "seed.nlt", kb);
  return kb;
}

void write_models(const std::string& dir) {
  const ntp::KnowledgeBase inverse = read_kb("p(a, b).\np(b, c).\nq(b, a).\n", "2 #1(X, Y) :- #2(Y, X).\n");
  ntp::Model plain = ntp::make_model(inverse, 2, ntp::ProverConfig{}, 1);
  plain.filter_facts.push_back({1, {2, 1}});
  ntp::save_model(plain, dir + "/inverse.ntp");

  ntp::ProverConfig lambda;
  lambda.complex = true;
  lambda.combine = ntp::Combine::Mean;
  lambda.depth = 2;
  lambda.k_facts = 0;
  lambda.index = "brute";
  const ntp::KnowledgeBase chain =
      read_kb("r(a, b, c).\nr(b, c, a).\ns(a).\n", "1 #1(X) :- #2(X, Y, Z), s(Y).\n1 #1(X, Y) :- #2(Y, X), #3(X, a).\n");
  ntp::save_model(ntp::make_model(chain, 4, lambda, 2), dir + "/lambda.ntp");

  ntp::save_model(ntp::make_model(read_kb("u(x).\n", ""), 1, ntp::ProverConfig{}, 3), dir + "/no_rules.ntp");
}

// A checkpoint taken in the middle of an epoch of Adam training.
void write_checkpoint(const std::string& dir) {
  ntp::Checkpoint c;
  c.model = ntp::make_model(read_kb("p(a, b).\np(b, c).\nq(b, a).\n", "1 #1(X, Y) :- #2(Y, X).\n"), 2, ntp::ProverConfig{}, 1);
  ntp::TrainOptions t;
  t.epochs = 2;
  t.batch = 1;
  ntp::EpochHooks stop_at_once;
  stop_at_once.stop_requested = [] { return true; };  // stopped after the first step
  ntp::train_epochs(c.model, t, c.state, stop_at_once);
  c.settings = "lr=0.001\n";
  ntp::save_checkpoint(c, dir + "/adam.ckpt");
}

void write_indices(const std::string& dir) {
  struct Shape {
    int n, d, M;
  };
  for (const Shape s : {Shape{1, 1, 2}, Shape{12, 2, 2}, Shape{40, 3, 4}}) {
    ann::HnswParams params;
    params.M = s.M;
    params.ef_construction = 16;
    ann::Hnsw index(params);
    index.build(ann::synthetic_gaussian(s.n, s.d, static_cast<uint64_t>(s.n)));
    index.save(dir + "/n" + std::to_string(s.n) + "_d" + std::to_string(s.d) + ".index");
  }
}

// fuzz_reference_prover reads its input as a list of choices, so any bytes
// make a case; these are cases of every depth and size to start from.
void write_choices(const std::string& dir) {
  std::mt19937 rng(11);
  for (int i = 0; i < 12; ++i) {
    std::string bytes(static_cast<std::size_t>(32 << (i % 4)), '\0');  // 32 to 256 bytes
    for (char& b : bytes) b = static_cast<char>(rng() % 256);
    bytes[0] = static_cast<char>(i % 3);  // the depth
    std::ofstream(dir + "/choices" + std::to_string(i), std::ios::binary) << bytes;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::filesystem::create_directories(dir + "/load_model");
  std::filesystem::create_directories(dir + "/hnsw_load");
  std::filesystem::create_directories(dir + "/load_checkpoint");
  std::filesystem::create_directories(dir + "/reference_prover");
  write_models(dir + "/load_model");
  write_checkpoint(dir + "/load_checkpoint");
  write_indices(dir + "/hnsw_load");
  write_choices(dir + "/reference_prover");
  return 0;
}
