// End-to-end tests of the `ntp` program: it is run as a user would run it,
// on the bundled family KB, and its output and exit codes are checked.
#include "../dot_graph.h"

#include "option_groups.h"
#include "run_ntp.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/wait.h>


TEST_CASE("usage and help text match the stored reference") {
  const Run none = ntp("");
  CHECK(none.status == 2);
  CHECK(none.out == slurp(kSource + "/tests/cli/expected/usage.txt"));
  const Run help = ntp("--help");
  CHECK(help.status == 0);
  CHECK(help.out == none.out);
  // --version: the version, the commit, the kind of build, the vector code chosen at run time and the threads.
  const Run version = ntp("--version");
  CHECK(version.status == 0);
  CHECK(version.out.rfind("ntp 0.1.0 (commit ", 0) == 0);
  for (const char* part : {" build for ", " distance kernels, ", " OpenMP thread"}) CHECK(version.out.find(part) != std::string::npos);
  const Run unknown = ntp("frobnicate");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.rfind("ntp: unknown command 'frobnicate'", 0) == 0);
  for (const char* command : {"train", "eval", "prove", "answer", "rules"}) {
    const Run r = ntp(std::string(command) + " --help");
    CHECK(r.status == 0);
    CHECK(r.out.find("--model") != std::string::npos);
  }
}

TEST_CASE("train --help lists every setting under its group, the groups in the table's order") {
  const Run help = ntp("train --help");
  REQUIRE_MESSAGE(help.status == 0, help.err);
  // Where each group's heading starts, then where the next one (Process) does.
  std::vector<std::size_t> headings;
  for (const std::string& title : train_group_titles()) {
    const std::size_t at = help.out.find("\n " + title + " options:\n");
    REQUIRE_MESSAGE(at != std::string::npos, title);
    if (!headings.empty()) CHECK(at > headings.back());
    headings.push_back(at);
  }
  CHECK(help.out.find("\n Files options:\n") < headings.front());
  const std::size_t process = help.out.find("\n Process options:\n");
  CHECK(process > headings.back());
  headings.push_back(process);
  for (const SettingInGroup& setting : train_settings_in_groups()) {
    const std::string flag = (setting.name.size() == 1 ? "-" : "--") + setting.name + " ";
    const std::size_t at = help.out.find(flag, headings[setting.group]);
    CHECK_MESSAGE(at < headings[setting.group + 1], setting.name);
  }
}

TEST_CASE("train, eval, rules and prove on the bundled family KB") {
  const std::string model = kWork + "/family.ntp";
  std::remove(model.c_str());
  const Run train = ntp("train --train " + kFamily + "/train.nl --templates " + kFamily + "/family.nlt --dev " +
                        kFamily + "/dev.nl --test " + kFamily + "/test.nl --model " + model +
                        " --dim 10 --epochs 3 --seed 1 --threads 1 --complex=false --mined-rules=false" +
                        " --mined-templates=false");  // the file's templates alone: its rules are counted below
  REQUIRE_MESSAGE(train.status == 0, train.err);
  CHECK(train.err.find("epoch 3/3") != std::string::npos);  // progress, one line per epoch
  CHECK(train.err.find("mined rules") == std::string::npos);
  CHECK(std::ifstream(model).good());
  CHECK(!std::ifstream(model + ".tmp").good());

  const Run eval = ntp("eval --model " + model + " --protocol ranking --test " + kFamily + "/test.nl --json");
  REQUIRE_MESSAGE(eval.status == 0, eval.err);
  const std::string json = last_line(eval.out);
  CHECK(json.front() == '{');
  CHECK(json.back() == '}');
  const double mrr = json_value(json, "mrr"), h1 = json_value(json, "hits@1"), h3 = json_value(json, "hits@3"),
               h10 = json_value(json, "hits@10");
  CHECK(mrr > 0);
  CHECK(mrr <= 1);
  CHECK(h1 <= h3);
  CHECK(h3 <= h10);
  CHECK(h10 <= 1);
  // The optimistic summary (ties below the true triple) can only be as good or better.
  const std::string optimistic = json.substr(json.find("\"optimistic\":"));
  CHECK(json_value(optimistic, "mrr") >= mrr);
  CHECK(json_value(optimistic, "hits@1") >= h1);
  // A plain model (the default is NTPλ): --score proof is its score; --score complex is refused.
  const Run proof_only = ntp("eval --model " + model + " --protocol ranking --test " + kFamily + "/test.nl --score proof --json");
  REQUIRE_MESSAGE(proof_only.status == 0, proof_only.err);
  CHECK(proof_only.out == eval.out);  // the same output: no note that it is not the model's score
  const Run no_complex = ntp("eval --model " + model + " --protocol ranking --test " + kFamily + "/test.nl --score complex");
  CHECK(no_complex.status == 2);
  CHECK(no_complex.err.find("score 'complex' needs ComplEx: the model was trained without it") != std::string::npos);
  const Run no_mean = ntp("eval --model " + model + " --protocol ranking --test " + kFamily + "/test.nl --score mean");
  CHECK(no_mean.status == 2);
  CHECK(no_mean.err.find("score 'mean' needs ComplEx: the model was trained without it") != std::string::npos);

  // One by one: every corruption scored, the same figures; --ranks writes one line per side.
  const std::string ranks = kWork + "/family.ranks.tsv";
  const Run one_by_one = ntp("eval --model " + model + " --protocol ranking --test " + kFamily +
                             "/test.nl --json --one-by-one --ranks " + ranks);
  REQUIRE_MESSAGE(one_by_one.status == 0, one_by_one.err);
  const std::string slow = last_line(one_by_one.out);
  CHECK(json_value(slow, "mrr") == mrr);
  CHECK(json_value(slow, "hits@1") == h1);
  CHECK(json_value(slow, "scored") == json_value(slow, "corruptions"));
  CHECK(json_value(json, "scored") <= json_value(slow, "scored"));
  std::ifstream ranks_in(ranks);
  std::string header, line;
  REQUIRE(std::getline(ranks_in, header));
  CHECK(header == "triple\tside\trank\toptimistic_rank\tscored\tcorruptions");
  int sides = 0;
  while (std::getline(ranks_in, line)) ++sides;
  std::ifstream test_in(kFamily + "/test.nl");
  int test_facts = 0;
  while (std::getline(test_in, line)) test_facts += line.find('(') != std::string::npos ? 1 : 0;
  CHECK(sides == 2 * test_facts);  // both sides of every test fact

  // --sample: ten test facts drawn at random, ranked as in the whole file: every
  // test fact is still filtered as true (the model below never saw the test
  // file, so only the file tells it which are), each line is one of the whole
  // run's; the metrics come with half-widths; another seed draws other facts.
  const std::string unseen = kWork + "/family.no-test.ntp";
  const Run train_unseen = ntp("train --train " + kFamily + "/train.nl --templates " + kFamily +
                               "/family.nlt --model " + unseen + " --dim 10 --epochs 3 --seed 1 --threads 1 --complex=false");
  REQUIRE_MESSAGE(train_unseen.status == 0, train_unseen.err);
  const auto ranks_of = [&](const std::string& options, const std::string& name, std::string* json_line) {
    const std::string path = kWork + "/family." + name + ".tsv";
    const Run run = ntp("eval --model " + unseen + " --protocol ranking --test " + kFamily + "/test.nl --json " +
                        options + " --ranks " + path);
    REQUIRE_MESSAGE(run.status == 0, run.err);
    *json_line = last_line(run.out);
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  };
  std::string whole_json, sample_json, other_json;
  const std::vector<std::string> whole = ranks_of("", "whole", &whole_json);
  const std::vector<std::string> drawn = ranks_of("--sample 10", "sample0", &sample_json);
  REQUIRE(drawn.size() == 1 + 20);
  for (const std::string& l : drawn) CHECK_MESSAGE(std::count(whole.begin(), whole.end(), l) == 1, l);
  CHECK(sample_json.find("\"sample\":{\"triples\":10,\"of\":" + std::to_string(test_facts) + ",\"seed\":0") !=
        std::string::npos);
  CHECK(json_value(sample_json.substr(sample_json.find("\"half_width\":")), "mrr") > 0);
  CHECK(ranks_of("--sample 10 --sample-seed 1", "sample1", &other_json) != drawn);
  CHECK(whole_json.find("\"sample\"") == std::string::npos);
  const Run negative = ntp("eval --model " + model + " --protocol ranking --test " + kFamily + "/test.nl --sample -1");
  CHECK(negative.status == 2);
  const Run not_ranking = ntp("eval --model " + model + " --protocol countries --test " + kFamily +
                              "/test.nl --regions r --truth t --sample 5");
  CHECK(not_ranking.status == 2);
  CHECK(not_ranking.err.find("for the ranking protocol only") != std::string::npos);

  const Run rules = ntp("rules --model " + model + " --min-confidence 0");
  REQUIRE_MESSAGE(rules.status == 0, rules.err);
  CHECK(std::count(rules.out.begin(), rules.out.end(), '\n') == 12);  // 3 templates x 4 copies
  CHECK(rules.out.find(":-") != std::string::npos);
  // --json: the same rules as one object, each confidence exact (3 decimals above).
  const Run rules_json = ntp("rules --model " + model + " --min-confidence 0 --json");
  REQUIRE_MESSAGE(rules_json.status == 0, rules_json.err);
  CHECK(rules_json.out.rfind("{\"rules\":[{\"rule\":", 0) == 0);
  CHECK(std::count(rules_json.out.begin(), rules_json.out.end(), '\n') == 1);
  char first[32];
  std::snprintf(first, sizeof first, "%.3f  ", json_value(rules_json.out, "confidence"));
  CHECK(rules.out.rfind(first, 0) == 0);

  // --mine: the rules the training facts support, each judged by the model. With every pair judged (the
  // family KB's bodies have fewer than kMaxPairsJudged), the model's inferences only add to what counting
  // found, so no rule's completed confidence is below its counted one.
  const Run judged = ntp("rules --model " + model + " --min-confidence 0 --mine --json");
  REQUIRE_MESSAGE(judged.status == 0, judged.err);
  const std::string list = judged.out.substr(judged.out.find("\"judged_rules\":["));
  int judged_rules = 0;
  for (std::size_t at = list.find("{\"rule\":"); at != std::string::npos; at = list.find("{\"rule\":", at + 1)) {
    const std::string one = list.substr(at, list.find('}', at) - at);
    CHECK_MESSAGE(json_value(one, "confidence") >= json_value(one, "counted_confidence"), one);
    CHECK(json_value(one, "pairs") > 0);
    ++judged_rules;
  }
  CHECK(judged_rules > 20);
  const Run judged_text = ntp("rules --model " + model + " --min-confidence 0 --mine");
  REQUIRE_MESSAGE(judged_text.status == 0, judged_text.err);
  const std::size_t judged_header = judged_text.out.find("judged by the model");
  REQUIRE(judged_header != std::string::npos);
  // The header's line, then one line a judged rule.
  CHECK(std::count(judged_text.out.begin() + static_cast<std::ptrdiff_t>(judged_header), judged_text.out.end(), '\n') ==
        1 + judged_rules);

  const Run prove = ntp("prove --model " + model + " \"grandfatherOf(m15, m24)\" --top 2");
  REQUIRE_MESSAGE(prove.status == 0, prove.err);
  CHECK(prove.out.rfind("grandfatherOf(m15, m24)  score ", 0) == 0);
  CHECK(prove.out.find("proof 2  score") != std::string::npos);

  const Run unknown = ntp("prove --model " + model + " \"grandfatherOf(m15, nobody)\"");
  CHECK(unknown.status == 1);
  CHECK(unknown.err.find("unknown constant 'nobody'") != std::string::npos);

  write("unknown.nl", "grandfatherOf(m15,m24).\nfatherOf(zeus,m24).\n");
  const Run refused = ntp("eval --model " + model + " --protocol ranking --test " + kWork + "/unknown.nl");
  CHECK(refused.status == 1);
  CHECK(refused.err.find("unknown.nl:2:") != std::string::npos);
  CHECK(refused.err.find("zeus") != std::string::npos);
}

TEST_CASE("training through the HNSW index reports its recall and, with --profile, where the time went") {
  const std::string model = kWork + "/family_hnsw.ntp";
  const Run train = ntp("train --train " + kFamily + "/train.nl --templates " + kFamily + "/family.nlt --model " + model +
                        " --dim 10 --epochs 2 --seed 1 --threads 1 --index hnsw --recall-every 5 --profile");
  REQUIRE_MESSAGE(train.status == 0, train.err);
  CHECK(train.err.find("epoch 2/2") != std::string::npos);
  CHECK(train.err.find("recall@1 ") != std::string::npos);
  CHECK(train.err.find("probes, hnsw)") != std::string::npos);
  CHECK(train.err.find("time: proof search ") != std::string::npos);
  CHECK(train.err.find("goals/s") != std::string::npos);
  // the gradient rows a step moved: some, each of 10 doubles (predicate and constant rows, dim 10)
  const std::size_t gradient = train.err.find("; gradient ");
  REQUIRE(gradient != std::string::npos);
  double rows = 0, kib = 0;
  REQUIRE(std::sscanf(train.err.c_str() + gradient, "; gradient %lf rows, %lf KiB a step", &rows, &kib) == 2);
  CHECK(rows >= 1);
  CHECK(kib == doctest::Approx(rows * 10 * 8 / 1024).epsilon(0.05));
  // The model keeps its index; eval and prove use it.
  const Run eval = ntp("eval --model " + model + " --protocol ranking --test " + kFamily + "/test.nl --json");
  REQUIRE_MESSAGE(eval.status == 0, eval.err);
  CHECK(json_value(last_line(eval.out), "mrr") > 0);
  // An exact index is never probed; a bad kind is refused up front.
  const Run exact = ntp("train --train " + kFamily + "/train.nl --model " + model + " --dim 10 --epochs 1 --index brute");
  REQUIRE_MESSAGE(exact.status == 0, exact.err);
  CHECK(exact.err.find("recall@1") == std::string::npos);
  const Run bad = ntp("train --train " + kFamily + "/train.nl --model " + model + " --index faiss");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("unknown fact index 'faiss'") != std::string::npos);
}

// Trains an NTPλ model of the family KB that scores by `combine` (no mined
// rules) and returns the `ntp eval` command that ranks its test facts.
std::string trained_lambda_eval(const std::string& combine, std::string& model) {
  model = kWork + "/family-" + combine + ".ntp";
  const Run train = ntp("train --train " + kFamily + "/train.nl --templates " + kFamily + "/family.nlt --model " +
                        model + " --dim 10 --epochs 2 --seed 1 --threads 1 --quiet --complex --combine " + combine +
                        " --mined-rules=false");
  REQUIRE_MESSAGE(train.status == 0, train.err);
  return "eval --model " + model + " --protocol ranking --test " + kFamily + "/test.nl --json";
}

TEST_CASE("an NTPλ model trained with --combine mean scores, evaluates and proves with the mean") {
  std::string model;
  const std::string eval = trained_lambda_eval("mean", model);
  const Run own = ntp(eval), mean = ntp(eval + " --score mean"), max = ntp(eval + " --score max");
  REQUIRE_MESSAGE(own.status == 0, own.err);
  REQUIRE_MESSAGE(mean.status == 0, mean.err);
  REQUIRE_MESSAGE(max.status == 0, max.err);
  CHECK(last_line(mean.out) == last_line(own.out));
  CHECK(own.out.find("not the model's") == std::string::npos);
  CHECK(max.out.find("scoring with max(proof, ComplEx), not the model's mean") != std::string::npos);
  const Run proof = ntp(eval + " --score proof");
  CHECK(proof.out.find("scoring with the proofs only, not the model's mean") != std::string::npos);

  const Run prove = ntp("prove --model " + model + " \"grandfatherOf(m15, m24)\"");
  REQUIRE_MESSAGE(prove.status == 0, prove.err);
  CHECK(prove.out.find("NTPλ score mean(proof, ComplEx) = ") != std::string::npos);
}

TEST_CASE("an NTPλ model trained with --combine complex ranks by its ComplEx part and still proves") {
  std::string model;
  const std::string eval = trained_lambda_eval("complex", model);
  const Run own = ntp(eval), link = ntp(eval + " --score complex"), proof = ntp(eval + " --score proof");
  REQUIRE_MESSAGE(own.status == 0, own.err);
  REQUIRE_MESSAGE(link.status == 0, link.err);
  REQUIRE_MESSAGE(proof.status == 0, proof.err);
  CHECK(last_line(own.out) == last_line(link.out));
  CHECK(link.out.find("not the model's") == std::string::npos);
  CHECK(proof.out.find("scoring with the proofs only, not the model's ComplEx score") != std::string::npos);
  CHECK(last_line(proof.out) != last_line(link.out));

  const Run prove = ntp("prove --model " + model + " \"grandfatherOf(m15, m24)\"");
  REQUIRE_MESSAGE(prove.status == 0, prove.err);
  CHECK(prove.out.find("the model scores with its ComplEx part") != std::string::npos);
}

TEST_CASE("bad input is refused with the file, the line and what was wrong") {
  write("broken.nl", "p(a,b).\np(a,c)\np(c,d).\n");
  const Run broken = ntp("train --train " + kWork + "/broken.nl --model " + kWork + "/never.ntp --epochs 1");
  CHECK(broken.status == 1);
  CHECK(broken.err.find("broken.nl:2:") != std::string::npos);
  CHECK(!std::ifstream(kWork + "/never.ntp").good());

  const Run missing = ntp("train --train " + kWork + "/no-such-file.nl --model " + kWork + "/never.ntp");
  CHECK(missing.status == 1);
  CHECK(missing.err.find("no-such-file.nl") != std::string::npos);

  const Run no_model = ntp("train --train " + kFamily + "/train.nl");
  CHECK(no_model.status == 2);
  CHECK(no_model.err.find("missing required option --model") != std::string::npos);

  // --combine joins the two scores of NTPλ: it needs --complex, and is max or mean.
  const Run lone_combine =
      ntp("train --train " + kFamily + "/train.nl --model " + kWork + "/never.ntp --complex=false --combine mean");
  CHECK(lone_combine.status == 2);
  CHECK(lone_combine.err.find("--combine needs --complex") != std::string::npos);
  const Run bad_combine =
      ntp("train --train " + kFamily + "/train.nl --model " + kWork + "/never.ntp --complex --combine median");
  CHECK(bad_combine.status == 2);
  CHECK(bad_combine.err.find("--combine is max, mean, proof, complex, dev or auto, got 'median'") != std::string::npos);
  const Run bad_mask = ntp("train --train " + kFamily + "/train.nl --model " + kWork + "/never.ntp --mask inverse");
  CHECK(bad_mask.status == 2);
  CHECK(bad_mask.err.find("--mask is fact or pair, got 'inverse'") != std::string::npos);
  const Run bad_dim = ntp("train --train " + kFamily + "/train.nl --model " + kWork + "/never.ntp --dim 1.5");
  CHECK(bad_dim.status == 2);
  CHECK(bad_dim.err.find("--dim is an integer, got '1.5'") != std::string::npos);
  CHECK(!std::ifstream(kWork + "/never.ntp").good());

  const Run unwritable = ntp("train --train " + kFamily + "/train.nl --model " + kWork + "/no/such/dir/m.ntp");
  CHECK(unwritable.status == 1);
  CHECK(unwritable.err.find("cannot open for writing") != std::string::npos);
  CHECK(unwritable.err.find("epoch") == std::string::npos);  // refused before any training

  write("not-a-model.ntp", "hello, this is not a model");
  const Run bad_model = ntp("rules --model " + kWork + "/not-a-model.ntp");
  CHECK(bad_model.status == 1);
  CHECK(bad_model.err.find("not an ntp model file") != std::string::npos);

  const Run protocol = ntp("eval --model " + kWork + "/not-a-model.ntp --protocol nonsense --test x");
  CHECK(protocol.status == 1);  // the model is read first, and refused
}

TEST_CASE("bytes that are not text are refused, not looped over or read as names") {
  // `ntp train` on a NUL inside an atom used to loop forever in the tokenizer.
  write("nul.nl", std::string("p(a,b).\nq(a,\0).\n", 16));
  const Run nul = ntp("train --train " + kWork + "/nul.nl --model " + kWork + "/never.ntp --epochs 1 --quiet");
  CHECK(nul.status == 1);
  CHECK(nul.err.find("nul.nl:2:5: found a NUL byte (expected text") != std::string::npos);
  CHECK(!std::ifstream(kWork + "/never.ntp").good());

  const Run zero = ntp("train --train /dev/zero --model " + kWork + "/never.ntp --epochs 1 --quiet");
  CHECK(zero.status == 1);
  CHECK(zero.err.find("/dev/zero:1:1: found a NUL byte") != std::string::npos);

  write("latin1.nl", "p(a,b).\np(caf\xE9,b).\n");
  const Run latin1 = ntp("train --train " + kWork + "/latin1.nl --model " + kWork + "/never.ntp --epochs 1 --quiet");
  CHECK(latin1.status == 1);
  CHECK(latin1.err.find("latin1.nl:2:6: found byte 0xE9, which is not valid UTF-8") != std::string::npos);

  // The query of `ntp prove` follows the same rule.
  write("tiny.nl", "p(a,b).\r\np(b,c).");  // CRLF and no final newline are fine
  const std::string model = kWork + "/tiny.ntp";
  const Run train = ntp("train --train " + kWork + "/tiny.nl --model " + model + " --dim 2 --epochs 1 --quiet");
  REQUIRE_MESSAGE(train.status == 0, train.err);
  const Run bad_query = ntp("prove --model " + model + " 'p(a,\x80)'");
  CHECK(bad_query.status == 1);
  CHECK(bad_query.err.find("atom:1:5: found byte 0x80, which is not valid UTF-8") != std::string::npos);
  const Run query = ntp("prove --model " + model + " 'p(a,c)'");
  CHECK(query.status == 0);
}

TEST_CASE("answer ranks a held-out fact among the top bindings; prove writes text, JSON and a dot graph") {
  const std::string model = kWork + "/family-answer.ntp";
  const Run train = ntp("train --train " + kFamily + "/train.nl --templates " + kFamily + "/family.nlt --dev " + kFamily +
                        "/dev.nl --test " + kFamily + "/test.nl --model " + model + " --dim 30 --epochs 30 --seed 1 --threads 1 --quiet");
  REQUIRE_MESSAGE(train.status == 0, train.err);
  // parentOf(m32, m33) is a test fact, not a training fact: only fatherOf(m32, m33) says so.
  const Run answer = ntp("answer --model " + model + " \"parentOf(m32, X)\" --top 3 --threads 1");
  REQUIRE_MESSAGE(answer.status == 0, answer.err);
  CHECK(answer.out.find(" 1. parentOf(m32, ") == 0);
  CHECK(answer.out.find("parentOf(m32, m33)  score ") != std::string::npos);
  CHECK(answer.out.find("X = m33") != std::string::npos);
  CHECK(answer.out.find(" 4. ") == std::string::npos);
  CHECK(answer.out.find("<-  fact") != std::string::npos);  // each answer's best proof
  const Run json = ntp("answer --model " + model + " \"parentOf(m32, X)\" --top 3 --json --threads 1");
  REQUIRE_MESSAGE(json.status == 0, json.err);
  CHECK(json.out.rfind("{\"query\":\"parentOf(m32, X)\",\"answers\":[{\"atom\":", 0) == 0);
  CHECK(json.out.find("\"bindings\":{\"X\":\"m33\"}") != std::string::npos);
  const Run bad = ntp("answer --model " + model + " \"parentOf(m32, X\"");
  CHECK(bad.status == 1);
  CHECK(bad.err.find("query:1:") != std::string::npos);

  // Many queries in one process: one JSON line each, with its latency; a bad
  // line is reported on its own line and the others are still answered.
  const std::string queries = kWork + "/queries.txt";
  std::ofstream(queries) << "% ground atoms\ngrandfatherOf(m15, m24)\n\nnobody(m1, m2)\nparentOf(m32, m33)\n";
  const Run many = ntp("prove --model " + model + " --queries " + queries + " --top 1");
  CHECK(many.status == 1);  // one line was refused
  std::istringstream lines(many.out);
  std::vector<std::string> line(3);
  for (std::string& l : line) std::getline(lines, l);
  CHECK(line[0].rfind("{\"query\":\"grandfatherOf(m15, m24)\",\"latency_ms\":", 0) == 0);
  CHECK(line[0].find(",\"result\":{\"atom\":\"grandfatherOf(m15, m24)\"") != std::string::npos);
  CHECK(line[1].find("\"error\":\"atom:1:1: unknown predicate 'nobody'") != std::string::npos);
  CHECK(line[2].find(",\"result\":{\"atom\":\"parentOf(m32, m33)\"") != std::string::npos);
  const Run one = ntp("prove --model " + model + " \"parentOf(m32, m33)\" --format json --top 1");
  CHECK(line[2].find(one.out.substr(0, one.out.size() - 1)) != std::string::npos);  // the same result as asked alone
  std::ofstream(queries) << "parentOf(m32, X)\n";
  const Run answers = ntp("answer --model " + model + " --queries " + queries + " --top 3 --threads 1");
  CHECK(answers.status == 0);
  CHECK(answers.out.find("\"result\":" + json.out.substr(0, json.out.size() - 1) + "}") != std::string::npos);

  const std::string query = " \"grandfatherOf(m15, m24)\"";
  const Run text = ntp("prove --model " + model + query + " --top 1");
  REQUIRE_MESSAGE(text.status == 0, text.err);
  int steps = 0;  // lines "goal  <-  fact ..." or "goal  <-  rule ..."
  for (std::size_t at = text.out.find("  <-  "); at != std::string::npos; at = text.out.find("  <-  ", at + 1)) ++steps;
  const Run dot = ntp("prove --model " + model + query + " --top 1 --format dot");
  REQUIRE_MESSAGE(dot.status == 0, dot.err);
  const DotGraph g = DotGraph::parse(dot.out);
  CHECK(steps >= 1);
  CHECK(g.count("s") == steps);  // one node per step
  for (const auto& [node, degree] : g.in_degree()) CHECK(degree == (node == "q" ? 0 : 1));
  CHECK(g.nodes.at("q").find("grandfatherOf(m15, m24)") != std::string::npos);
  for (const auto& [node, attributes] : g.nodes)  // the one proof shown is the winning path
    if (node[0] == 's') CHECK(attributes.find("color=red") != std::string::npos);
  const Run three = ntp("prove --model " + model + query + " --top 3 --format dot");
  const DotGraph t = DotGraph::parse(three.out);
  CHECK(t.count("p") == 3);
  int red = 0;
  for (const auto& [node, attributes] : t.nodes) red += node[0] == 's' && attributes.find("color=red") != std::string::npos;
  CHECK(red == steps);
  const Run as_json = ntp("prove --model " + model + query + " --top 1 --format json");
  REQUIRE_MESSAGE(as_json.status == 0, as_json.err);
  CHECK(as_json.out.rfind("{\"atom\":\"grandfatherOf(m15, m24)\",\"score\":", 0) == 0);
  const Run bad_format = ntp("prove --model " + model + query + " --format svg");
  CHECK(bad_format.status == 2);
  CHECK(bad_format.err.find("--format is text, json or dot, got 'svg'") != std::string::npos);
}

TEST_CASE("mine writes rules that eval ranks with and train starts from; rules shows where each started") {
  const std::string rules = kWork + "/family.rules.tsv";
  std::remove(rules.c_str());
  const Run mine = ntp("mine --train " + kFamily + "/train.nl --rules-per-head 2 --out " + rules);
  REQUIRE_MESSAGE(mine.status == 0, mine.err);
  CHECK(mine.err.find("counted support:") != std::string::npos);  // progress
  CHECK(mine.err.find("mined 24 rules from") != std::string::npos);  // 6 head predicates, 2 each and 2 with a constant each
  CHECK(mine.err.find("12 rules with a constant") != std::string::npos);
  std::ifstream in(rules);
  std::string header, first;
  REQUIRE(std::getline(in, header));
  CHECK(header == "% confidence\tpca_confidence\thead_coverage\tsupport\tbody_pairs\trule");
  REQUIRE(std::getline(in, first));
  CHECK(first.find(":-") != std::string::npos);
  const Run to_stdout = ntp("mine --train " + kFamily + "/train.nl --rules-per-head 2 --quiet");
  REQUIRE_MESSAGE(to_stdout.status == 0, to_stdout.err);
  CHECK(to_stdout.out == slurp(rules));
  CHECK(to_stdout.err.find("counted support:") == std::string::npos);  // no progress, the summary only
  const Run chosen = ntp("mine --train " + kFamily + "/train.nl --dev " + kFamily + "/dev.nl --test " + kFamily +
                         "/test.nl --quiet");
  REQUIRE_MESSAGE(chosen.status == 0, chosen.err);
  CHECK(chosen.err.find("kept on dev: ") == 0);
  CHECK(chosen.err.find("(dev mrr on ") != std::string::npos);

  // The rules alone, symbolically, with no model: a ranking like any other.
  const Run alone = ntp("eval --protocol ranking --train " + kFamily + "/train.nl --rules " + rules + " --test " +
                        kFamily + "/test.nl --filter " + kFamily + "/dev.nl --json --quiet");
  REQUIRE_MESSAGE(alone.status == 0, alone.err);
  CHECK(alone.out.find("ranking with the 24 rules of") == 0);
  const double mrr = json_value(last_line(alone.out), "mrr");
  CHECK(mrr > 0.3);  // the planted rules predict most test facts
  CHECK(mrr <= 1);
  const Run noisy = ntp("eval --protocol ranking --train " + kFamily + "/train.nl --rules " + rules + " --test " +
                        kFamily + "/test.nl --aggregation noisy-or --quiet");
  REQUIRE_MESSAGE(noisy.status == 0, noisy.err);
  CHECK(noisy.out.find("noisy-or of their confidences") != std::string::npos);
  const Run bad = ntp("eval --protocol ranking --train " + kFamily + "/train.nl --rules " + rules + " --test " +
                      kFamily + "/test.nl --aggregation sum");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("rule aggregation is max, noisy-or or paths, got 'sum'") != std::string::npos);

  // Trained from the mined rules: each learnt rule says which it started from.
  const std::string model = kWork + "/family_mined.ntp";
  const Run train = ntp("train --train " + kFamily + "/train.nl --templates " + rules + " --model " + model +
                        " --dim 10 --epochs 2 --seed 1 --threads 1 --quiet --complex=false");
  REQUIRE_MESSAGE(train.status == 0, train.err);
  const Run learnt = ntp("rules --model " + model + " --min-confidence 0");
  REQUIRE_MESSAGE(learnt.status == 0, learnt.err);
  CHECK(learnt.out.find("       started from ") != std::string::npos);
  CHECK(learnt.out.find("on the training facts)") != std::string::npos);
  const Run json = ntp("rules --model " + model + " --min-confidence 0 --json");
  CHECK(json.out.find("\"started_from\":") != std::string::npos);

  // The rules first, the model ordering what they leave tied (here the many
  // constants no rule predicts, which otherwise share their mean rank).
  const Run hybrid = ntp("eval --model " + model + " --protocol ranking --rules " + rules + " --rule-ties model --test " +
                         kFamily + "/test.nl --json --quiet");
  REQUIRE_MESSAGE(hybrid.status == 0, hybrid.err);
  CHECK(hybrid.out.find("their ties broken by the model's score") != std::string::npos);
  const Run rules_only = ntp("eval --model " + model + " --protocol ranking --rules " + rules + " --test " + kFamily +
                             "/test.nl --json --quiet");
  REQUIRE_MESSAGE(rules_only.status == 0, rules_only.err);
  CHECK(json_value(last_line(hybrid.out), "mrr") != json_value(last_line(rules_only.out), "mrr"));
  const Run bad_ties = ntp("eval --model " + model + " --protocol ranking --rules " + rules + " --rule-ties best --test " +
                           kFamily + "/test.nl");
  CHECK(bad_ties.status == 2);
}

TEST_CASE("eval scores Countries by mined rules: alone over --train, or the rules first with a model") {
  // Two regions, each with a subregion; the test countries' own locatedIn
  // facts are missing (as Countries S2 and S3), but their neighbours' are not.
  write("c_train.nl",
        "locatedIn(sa, ra). locatedIn(sb, rb).\n"
        "locatedIn(a1, sa). locatedIn(a1, ra). locatedIn(a2, sa). locatedIn(a2, ra). locatedIn(a3, sa). locatedIn(a3, ra).\n"
        "locatedIn(b1, sb). locatedIn(b1, rb). locatedIn(b2, sb). locatedIn(b2, rb). locatedIn(b3, sb). locatedIn(b3, rb).\n"
        "neighborOf(a1, a2). neighborOf(a2, a1). neighborOf(a2, a3). neighborOf(a3, a2). neighborOf(b1, b2). neighborOf(b2, b1).\n"
        "neighborOf(b2, b3). neighborOf(b3, b2). neighborOf(ta, a1). neighborOf(a1, ta). neighborOf(tb, b3). neighborOf(b3, tb).\n");
  write("c_test.txt", "ta\ntb\n");
  write("c_regions.txt", "ra\nrb\n");
  write("c_truth.nl", "locatedIn(ta, ra). locatedIn(tb, rb).\n");
  const std::string rules = kWork + "/c_rules.tsv", files = " --test " + kWork + "/c_test.txt --regions " + kWork +
                                                             "/c_regions.txt --truth " + kWork + "/c_truth.nl";
  REQUIRE(ntp("mine --train " + kWork + "/c_train.nl --max-atoms 3 --quiet --out " + rules).status == 0);
  const Run alone = ntp("eval --protocol countries --train " + kWork + "/c_train.nl --rules " + rules + files + " --json");
  REQUIRE_MESSAGE(alone.status == 0, alone.err);
  CHECK(alone.out.find("ranking with the ") == 0);
  CHECK(json_value(last_line(alone.out), "auc_pr") == 1);  // each test country reached only its own region
  write("c_templates.nlt", "2 #1(X, Y) :- #2(X, Z), #3(Z, Y).\n");
  const std::string model = kWork + "/c.ntp";
  REQUIRE(ntp("train --train " + kWork + "/c_train.nl --templates " + kWork + "/c_templates.nlt --model " + model +
              " --dim 8 --epochs 2 --seed 1 --threads 1 --quiet").status == 0);
  const Run first = ntp("eval --model " + model + " --protocol countries --rules " + rules + " --rule-ties model" + files);
  REQUIRE_MESSAGE(first.status == 0, first.err);
  CHECK(first.out.find("their ties broken by the model's score") != std::string::npos);
  CHECK(first.out.find("AUC-PR 100 over 4 atoms (2 true)") != std::string::npos);
  const Run classification = ntp("eval --model " + model + " --protocol classification --rules " + rules +
                                 " --dev " + kWork + "/c_truth.nl --test " + kWork + "/c_truth.nl");
  CHECK(classification.status == 2);
  CHECK(classification.err.find("not classification") != std::string::npos);

  // Paths, the protocol's default, weigh each region by the share of a
  // country's paths that reach it: tm's two neighbours split it between ra
  // and rb, ta's both lead to ra, so ta is surer of ra than tm. Under max
  // the three atoms tie.
  write("p_train.nl",
        "locatedIn(sa, ra). locatedIn(sb, rb).\n"
        "locatedIn(a1, sa). locatedIn(a1, ra). locatedIn(a2, sa). locatedIn(a2, ra). locatedIn(a3, sa). locatedIn(a3, ra).\n"
        "locatedIn(b1, sb). locatedIn(b1, rb). locatedIn(b2, sb). locatedIn(b2, rb).\n"
        "neighborOf(a1, a2). neighborOf(a2, a1). neighborOf(a2, a3). neighborOf(a3, a2). neighborOf(b1, b2). neighborOf(b2, b1).\n"
        "neighborOf(ta, a1). neighborOf(a1, ta). neighborOf(ta, a2). neighborOf(a2, ta).\n"
        "neighborOf(tm, a3). neighborOf(a3, tm). neighborOf(tm, b1). neighborOf(b1, tm).\n");
  write("p_test.txt", "ta\ntm\n");
  write("p_truth.nl", "locatedIn(ta, ra). locatedIn(tm, ra).\n");
  const std::string p_rules = kWork + "/p_rules.tsv", p_files = " --test " + kWork + "/p_test.txt --regions " + kWork +
                                                                 "/c_regions.txt --truth " + kWork + "/p_truth.nl";
  REQUIRE(ntp("mine --train " + kWork + "/p_train.nl --max-atoms 3 --constants=false --quiet --out " + p_rules).status == 0);
  const std::string p_eval = "eval --protocol countries --train " + kWork + "/p_train.nl --rules " + p_rules + p_files;
  const Run by_paths = ntp(p_eval + " --json"), by_max = ntp(p_eval + " --aggregation max --json");
  REQUIRE_MESSAGE(by_paths.status == 0, by_paths.err);
  REQUIRE_MESSAGE(by_max.status == 0, by_max.err);
  CHECK(by_paths.out.find("(paths of their confidences)") != std::string::npos);
  CHECK(by_max.out.find("(max of their confidences)") != std::string::npos);
  CHECK(json_value(last_line(by_paths.out), "auc_pr") > json_value(last_line(by_max.out), "auc_pr"));
}

TEST_CASE("mine refuses what it cannot read, with the file and line") {
  const std::string bad = kWork + "/bad_rules.tsv";
  std::ofstream(bad) << "0.5\t0.5\t0.5\t2\t4\tfatherOf(X, Y) :- nobody(Y, X)\n";
  const Run eval = ntp("eval --protocol ranking --train " + kFamily + "/train.nl --rules " + bad + " --test " + kFamily + "/test.nl");
  CHECK(eval.status == 1);
  CHECK(eval.err.find(bad + ":1:35: unknown predicate 'nobody'") != std::string::npos);
  const Run train = ntp("train --train " + kFamily + "/train.nl --templates " + bad + " --model " + kWork + "/x.ntp");
  CHECK(train.status == 1);
  CHECK(train.err.find(bad + ":1:35: unknown predicate 'nobody'") != std::string::npos);
  const Run missing = ntp("mine --train " + kWork + "/no_such_file.nl");
  CHECK(missing.status == 1);
  CHECK(missing.err.find("no_such_file.nl") != std::string::npos);
  const Run negative = ntp("mine --train " + kFamily + "/train.nl --rules-per-head -1");
  CHECK(negative.status == 2);
}
