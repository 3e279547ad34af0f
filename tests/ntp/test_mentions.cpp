// Textual patterns (kb/pattern.h, model/mentions.h): their words, the TSV
// reader's mention rows and refusals, pattern rows computed from word rows,
// the gradient carried to the words against finite differences, training
// keeping the rows encoded, and model files keeping the word table.
#include "ntp/eval/protocol.h"
#include "ntp/ntp.h"
#include "ntp/kb/parse.h"
#include "ntp/kb/pattern.h"
#include "ntp/kb/text.h"
#include "ntp/model/complex.h"
#include "ntp/model/mentions.h"
#include "ntp/train/epochs.h"

#include "autodiff/ops.h"
#include "inverse_rule_training.h"
#include "table_gradcheck.h"

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

const char* kAdjacent = "[XXX]:is:adjacent:to:[YYY]";
const char* kNeighbour = "[XXX]:is:a:neighbour:of:[YYY]";

std::vector<ntp::Atom> read_tsv(const std::string& text, ntp::KnowledgeBase& kb) {
  std::istringstream in(text);
  return ntp::read_facts_tsv(in, "m.tsv", kb, ntp::NewSymbols::Allow);
}

// A KB of a relation and two patterns sharing the words "is" and the
// placeholders, as GNTP's mention files give them (with counts).
ntp::KnowledgeBase mention_kb() {
  ntp::KnowledgeBase kb;
  const std::string text = std::string("a\tneighborOf\tb\nb\tneighborOf\tc\n") + "c\t" + kAdjacent + "\td\t1\n" +
                           "d\t" + kNeighbour + "\te\t2\n" + "e\t" + kAdjacent + "\ta\t1\n";
  for (const ntp::Atom& f : read_tsv(text, kb)) kb.add_fact(f);
  return kb;
}

// Each pattern row is the mean of its words' rows.
void check_encoded(const ntp::Model& m) {
  for (int p : ntp::pattern_rows(m)) {
    ad::Matrix mean = ad::Matrix::Zero(1, m.dim);
    const std::vector<int>& words = m.mentions.words_of[static_cast<std::size_t>(p)];
    for (int w : words) mean += m.mentions.table.value.row(w);
    mean /= static_cast<double>(words.size());
    CHECK(m.predicates.value.row(p).isApprox(mean));
  }
}

// A model file's version: the int after the 8-byte magic number.
std::int32_t version_of(const std::string& file) {
  std::int32_t version = 0;
  std::memcpy(&version, file.data() + 8, sizeof version);
  return version;
}

}  // namespace

TEST_CASE("a pattern's words are split at ':' or blanks, placeholders kept; malformed ones are named") {
  CHECK(ntp::is_pattern(kAdjacent));
  CHECK(ntp::is_pattern("[X] borders [Y]"));
  CHECK(!ntp::is_pattern("neighborOf"));
  CHECK(!ntp::is_pattern("/film/film/genre"));
  CHECK(!ntp::is_pattern("a[b]"));
  CHECK(ntp::pattern_words(kAdjacent) == std::vector<std::string>{"[XXX]", "is", "adjacent", "to", "[YYY]"});
  CHECK(ntp::pattern_words("[X] borders [Y]") == std::vector<std::string>{"[X]", "borders", "[Y]"});
  std::size_t at = 99;
  CHECK(ntp::pattern_problem(kAdjacent, at).empty());
  CHECK(ntp::pattern_problem("[XXX]:is::to:[YYY]", at).find("empty word") != std::string::npos);
  CHECK(at == 9);  // where the empty word is: at the second of the two separators
  CHECK(ntp::pattern_problem("[XXX]:is:[to:[YYY]", at).find("'[to'") != std::string::npos);
  CHECK(at == 9);
  CHECK(ntp::pattern_problem("[XXX]:[YYY]", at).find("no word besides") != std::string::npos);
  CHECK(ntp::pattern_problem("[XXX]:is:adjacent:", at).find("empty word") != std::string::npos);
}

TEST_CASE("TSV facts take GNTP's mention rows (a count) and refuse bad counts and patterns where they are") {
  ntp::KnowledgeBase kb = mention_kb();
  CHECK(kb.facts.size() == 5);
  CHECK(kb.predicates.find(kAdjacent) >= 0);
  struct Bad {
    std::string text;
    int column;
    std::string says;
  };
  for (const Bad& bad : {Bad{"a\tp\tb\t0\n", 7, "count '0'"}, Bad{"a\tp\tb\t-1\n", 7, "count '-1'"},
                         Bad{"a\tp\tb\tx\n", 7, "count 'x'"}, Bad{"a\t[XXX]:is::to:[YYY]\tb\n", 12, "empty word"},
                         Bad{"a\tp\tb\t1\tq\n", 9, "expected 3 or 4"}}) {
    CAPTURE(bad.text);
    ntp::KnowledgeBase other = mention_kb();
    const int predicates = other.predicates.size(), constants = other.constants.size();
    try {
      read_tsv("x\tp\ty\n" + bad.text, other);
      FAIL("accepted");
    } catch (const ntp::ParseError& e) {
      CHECK(e.line == 2);
      CHECK(e.column == bad.column);
      CHECK(std::string(e.what()).find(bad.says) != std::string::npos);
    }
    CHECK(other.predicates.size() == predicates);  // nothing of the file was kept
    CHECK(other.constants.size() == constants);
  }
}

TEST_CASE("a pattern's row is the mean of its words' rows, words shared between patterns") {
  const ntp::Model m = ntp::make_model(mention_kb(), 6, ntp::ProverConfig{}, 3);
  REQUIRE(ntp::has_mentions(m));
  CHECK(m.mentions.words.size() == 8);  // [XXX] is adjacent to [YYY] a neighbour of
  CHECK(ntp::pattern_rows(m).size() == 2);
  CHECK(m.mentions.words_of[0].empty());  // neighborOf is a relation
  check_encoded(m);
  ntp::KnowledgeBase plain;
  for (const ntp::Atom& f : read_tsv("a\tr\tb\n", plain)) plain.add_fact(f);
  const ntp::Model without = ntp::make_model(plain, 6, ntp::ProverConfig{}, 3);
  CHECK(!ntp::has_mentions(without));
  CHECK(without.mentions.table.value.size() == 0);
}

TEST_CASE("the gradient on pattern rows reaches the words as finite differences of the loss say") {
  ntp::Model m = ntp::make_model(mention_kb(), 4, ntp::ProverConfig{}, 7);
  for (ad::Index i = 0; i < m.mentions.table.value.size(); ++i) m.mentions.table.value.data()[i] *= 0.5;
  const std::vector<int> patterns = ntp::pattern_rows(m);
  ntp::encode_pattern_rows(m, patterns);
  const std::vector<ntp::Atom> atoms = m.kb.facts;
  const auto loss = [&] {  // ComplEx's scores of every fact, through re-encoded pattern rows
    ntp::encode_pattern_rows(m, patterns);
    double total = 0;
    for (double s : ntp::complex_scores(m, atoms)) total += s;
    return total;
  };
  ad::Tape t;
  t.backward(ad::sum(t, ntp::complex_scores(t, m, atoms)));
  ntp::push_pattern_gradients(m);
  for (int p : patterns) {
    CHECK(!m.predicates.is_touched[static_cast<std::size_t>(p)]);  // the optimiser will not move them
    CHECK(m.predicates.grad.row(p).isZero());
  }
  CHECK(m.predicates.is_touched[0]);  // neighborOf keeps its own
  check_table_gradients(m, loss);  // the words against finite differences (pattern rows: 0, re-encoded by loss)
}

TEST_CASE("training moves the words and keeps every pattern row their mean; model files keep the words") {
  ntp::Model m = ntp::make_model(mention_kb(), 5, ntp::ProverConfig{}, 11);
  const ad::Matrix words_before = m.mentions.table.value;
  ntp::TrainOptions o = inverse_rule_training(11, 0.05);
  o.epochs = 3;
  ntp::train_epochs(m, o);
  CHECK(!m.mentions.table.value.isApprox(words_before));
  check_encoded(m);
  std::stringstream file;
  ntp::write_model(m, file);
  CHECK(version_of(file.str()) == 9);  // a word table follows
  const ntp::Model back = ntp::load_model(file, "m.model");
  CHECK(back.mentions.table.value == m.mentions.table.value);
  CHECK(back.predicates.value == m.predicates.value);
  ntp::KnowledgeBase plain;
  for (const ntp::Atom& f : read_tsv("a\tr\tb\nb\tr\tc\n", plain)) plain.add_fact(f);
  std::stringstream plain_file;
  ntp::write_model(ntp::make_model(plain, 5, ntp::ProverConfig{}, 11), plain_file);
  CHECK(version_of(plain_file.str()) == 8);  // no patterns: the version, and so the bytes, of before
}

TEST_CASE(".nl facts and templates take a pattern in double quotes, and names print so that they read back") {
  ntp::KnowledgeBase kb;
  std::istringstream in("\"[XXX] is adjacent to [YYY]\"(spain, portugal).\n\"[XXX]:borders:[YYY]\"(\"France\", spain).\n"
                        "neighborOf(spain, france).\n");
  const std::vector<ntp::Atom> facts = ntp::read_facts_nl(in, "m.nl", kb, ntp::NewSymbols::Allow);
  REQUIRE(facts.size() == 3);
  CHECK(kb.predicates.name(facts[0].predicate) == "[XXX] is adjacent to [YYY]");
  CHECK(kb.constants.name(facts[1].args[0]) == "France");  // quoted: a constant, not a variable
  for (const ntp::Atom& f : facts) kb.add_fact(f);
  CHECK(ntp::to_string(kb, facts[1]) == "\"[XXX]:borders:[YYY]\"(France, spain)");
  CHECK(ntp::to_string(kb, facts[2]) == "neighborOf(spain, france)");
  CHECK(ntp::name_text("wn.n.01") == "wn.n.01");
  CHECK(ntp::name_text("/film/film/genre") == "/film/film/genre");
  std::istringstream templates("1  neighborOf(X, Y) :- \"[XXX]:borders:[YYY]\"(Y, X).\n");
  const std::vector<ntp::Template> read = ntp::read_templates_nlt(templates, "m.nlt", kb);
  REQUIRE(read.size() == 1);
  CHECK(!read[0].body[0].predicate.is_slot);
  CHECK(ntp::to_string(kb, read[0]) == "neighborOf(X, Y) :- \"[XXX]:borders:[YYY]\"(Y, X)");
  struct Bad {
    std::string text;
    int column;
    std::string says;
  };
  for (const Bad& bad : {Bad{"\"[XXX] is  to [YYY]\"(a, b).", 11, "empty word"},
                         Bad{"\"[XXX] is near(a, b).\n", 1, "unterminated quoted name"},
                         Bad{"\"\"(a, b).", 1, "empty quoted name"}, Bad{"p(\"A\", B).", 8, "variable 'B'"}}) {
    CAPTURE(bad.text);
    ntp::KnowledgeBase other;
    std::istringstream bad_in(bad.text);
    try {
      ntp::read_facts_nl(bad_in, "m.nl", other, ntp::NewSymbols::Allow);
      FAIL("accepted");
    } catch (const ntp::ParseError& e) {
      CHECK(e.line == 1);
      CHECK(e.column == bad.column);
      CHECK(std::string(e.what()).find(bad.says) != std::string::npos);
    }
  }
}

TEST_CASE("a phrase never seen in training is encoded from the words the model learnt, and ranked") {
  ntp::Model m = ntp::make_model(mention_kb(), 6, ntp::ProverConfig{}, 13);
  const std::string unseen = "[XXX] is a neighbour to [YYY]";  // every word from the two patterns of training
  CHECK(ntp::unseen_patterns(m, {unseen, "neighborOf", kAdjacent, "plain"}) == std::vector<std::string>{unseen});
  const ntp::Model grown = ntp::with_patterns(m, {unseen});
  const int row = grown.kb.predicates.find(unseen);
  REQUIRE(row == m.num_kb_predicates);
  check_encoded(grown);
  CHECK(grown.predicates.value.topRows(m.num_kb_predicates) == m.predicates.value.topRows(m.num_kb_predicates));
  CHECK(grown.predicates.value.bottomRows(m.num_rule_slots) ==
        m.predicates.value.middleRows(m.num_kb_predicates, m.num_rule_slots));
  CHECK(ntp::complex_scores(grown, m.kb.facts) == ntp::complex_scores(m, m.kb.facts));  // the old atoms score as before
  CHECK_THROWS_WITH_AS(ntp::with_patterns(m, {"[XXX] is beside [YYY]"}), doctest::Contains("'beside'"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ntp::with_patterns(m, {"[XXX]:is::to:[YYY]"}), doctest::Contains("empty word"),
                       std::invalid_argument);
  // ntp eval's ranking takes a test file stating facts through it
  const std::string test = (std::filesystem::temp_directory_path() / "ntp_unseen_pattern_test.tsv").string();
  std::ofstream(test) << "a\t" << unseen << "\tb\nc\tneighborOf\td\n";
  ntp::EvalRequest q;
  q.protocol = "ranking";
  q.test = test;
  const ntp::EvalReport report = ntp::evaluate(m, q);
  std::filesystem::remove(test);
  CAPTURE(report.json);
  CHECK(report.json.find("\"corruptions\":16") != std::string::npos);  // 4 sides, each against the 4 other constants
  // and the Reasoner proves an atom of it
  const ntp::Reasoner reasoner(m);
  const ntp::Explanation e = reasoner.prove("\"" + unseen + "\"(a, b)");
  CHECK(e.atom == "\"" + unseen + "\"(a, b)");
  CHECK(e.proofs_searched > 0);
  CHECK_THROWS_AS(reasoner.prove("\"[XXX] is beside [YYY]\"(a, b)"), std::invalid_argument);
  // and answers a query of it, as the grown model's own Reasoner does
  const std::vector<ntp::Answer> answers = reasoner.answer("\"" + unseen + "\"(a, X)", 3);
  const std::vector<ntp::Answer> grown_answers = ntp::Reasoner(grown).answer("\"" + unseen + "\"(a, X)", 3);
  REQUIRE(answers.size() == 3);
  REQUIRE(grown_answers.size() == 3);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    CHECK(answers[i].atom == grown_answers[i].atom);
    CHECK(answers[i].score == grown_answers[i].score);
  }
  CHECK_THROWS_AS(reasoner.answer("\"[XXX] is beside [YYY]\"(a, X)", 3), std::invalid_argument);
}
