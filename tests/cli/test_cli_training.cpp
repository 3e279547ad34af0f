// `ntp train` left running: the dev metric and the model kept, the per-epoch
// log, checkpoints and --resume (byte-identical to an uninterrupted run), and
// stopping on SIGINT with a checkpoint and a message saying how to resume.
#include "run_ntp.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <regex>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

namespace {

// The options every run below shares: the family KB, small and one thread,
// one L2 value and the file's templates alone (so no choice between runs:
// see the tests of the choices).
const std::string kTrain = "train --train " + kFamily + "/train.nl --templates " + kFamily + "/family.nlt --dev " +
                           kFamily + "/dev.nl --dim 10 --seed 1 --threads 1 --lr 0.05 --l2 0.0001 --mined-templates=false --quiet";

// kTrain with the progress lines.
std::string loud(const std::string& options) { return std::string(options).replace(options.find(" --quiet"), 8, ""); }

std::string model(const std::string& name) { return kWork + "/" + name + ".ntp"; }

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("--resume: 2 + 2 epochs give the same model, byte for byte, as 4 epochs") {
  const Run four = ntp(kTrain + " --epochs 4 --keep last --model " + model("four"));
  REQUIRE_MESSAGE(four.status == 0, four.err);
  const Run two = ntp(kTrain + " --epochs 2 --keep last --model " + model("two"));
  REQUIRE_MESSAGE(two.status == 0, two.err);
  CHECK(std::ifstream(model("two") + ".ckpt").good());  // a checkpoint after every epoch
  CHECK(!std::ifstream(model("two") + ".ckpt.tmp").good());  // written atomically
  CHECK(slurp(model("two")) != slurp(model("four")));
  const Run more = ntp(loud(kTrain) + " --epochs 4 --keep last --resume --model " + model("two"));
  REQUIRE_MESSAGE(more.status == 0, more.err);
  CHECK(more.err.find("resuming from " + model("two") + ".ckpt after epoch 2") != std::string::npos);
  CHECK(slurp(model("two")) == slurp(model("four")));

  // Other options than the checkpoint's are refused, naming them; so is a missing checkpoint.
  const Run other = ntp(kTrain + " --epochs 6 --keep last --resume --batch 5 --model " + model("two"));
  CHECK(other.status == 1);
  CHECK(other.err.find("cannot resume from " + model("two") + ".ckpt: batch is 5 now but 10 in the checkpoint") !=
        std::string::npos);
  write("one.nl", "fatherOf(m1,m2).\n");
  const Run data = ntp("train --train " + kWork + "/one.nl --dev " + kFamily + "/dev.nl --dim 10 --seed 1 --threads 1 "
                       "--lr 0.05 --quiet --epochs 6 --keep last --resume --model " + model("two"));
  CHECK(data.status == 1);
  CHECK(data.err.find("the training data (facts, templates, dev or test atoms) differ") != std::string::npos);
  CHECK(slurp(model("two")) == slurp(model("four")));  // refused before touching anything
  const Run none = ntp(kTrain + " --epochs 2 --resume --model " + kWork + "/never-trained.ntp");
  CHECK(none.status == 1);
  CHECK(none.err.find("never-trained.ntp.ckpt: no checkpoint to resume from") != std::string::npos);
}

TEST_CASE("--eval-every shows the dev metric, --keep best keeps the best-on-dev model, --log writes JSON lines") {
  // With these settings dev MRR peaks before the last of 8 epochs (at epoch 3).
  const std::string log = kWork + "/best.log";
  const Run best = ntp(kTrain + " --epochs 8 --eval-every 1 --log " + log + " --model " + model("best"));
  REQUIRE_MESSAGE(best.status == 0, best.err);
  const std::string text = slurp(log);
  REQUIRE(lines(text) == 8);  // one object per epoch
  int best_epoch = 0;
  double best_mrr = -1;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    CHECK(line.front() == '{');
    CHECK(line.back() == '}');
    CHECK(json_value(line, "loss") > 0);
    CHECK(json_value(line, "seconds") >= 0);
    if (json_value(line, "dev_mrr") > best_mrr) {
      best_mrr = json_value(line, "dev_mrr");
      best_epoch = static_cast<int>(json_value(line, "epoch"));
    }
  }
  REQUIRE(best_epoch < 8);  // else best and last would be the same model
  CHECK(best.err.find("best dev mrr ") != std::string::npos);
  CHECK(best.err.find("after epoch " + std::to_string(best_epoch)) != std::string::npos);
  // The kept model is the one after the best epoch; --keep last keeps epoch 8's.
  const Run at_best = ntp(kTrain + " --epochs " + std::to_string(best_epoch) + " --keep last --model " + model("at-best"));
  const Run last = ntp(kTrain + " --epochs 8 --eval-every 1 --keep last --model " + model("last"));
  REQUIRE_MESSAGE(at_best.status == 0, at_best.err);
  REQUIRE_MESSAGE(last.status == 0, last.err);
  CHECK(slurp(model("best")) == slurp(model("at-best")));
  CHECK(slurp(model("last")) != slurp(model("at-best")));
  // The progress line shows the metric.
  const Run shown = ntp(loud(kTrain) + " --epochs 2 --eval-every 2 --model " + model("shown"));
  CHECK(shown.err.find("epoch 2/2  loss ") != std::string::npos);
  CHECK(shown.err.find("dev mrr ") != std::string::npos);
  CHECK(shown.err.find("epoch 1/2") != std::string::npos);
  CHECK(shown.err.substr(0, shown.err.find("epoch 2/2")).find("dev mrr") == std::string::npos);  // measured every 2nd epoch
  // The measurement says it is running (minutes on a large KB), only when it runs.
  CHECK(shown.err.find("epoch 2: measuring mrr on ") != std::string::npos);
  CHECK(shown.err.find("epoch 1: measuring") == std::string::npos);
  const Run bad = ntp(kTrain + " --keep first --model " + model("never"));
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--keep is best or last, got 'first'") != std::string::npos);
}

TEST_CASE("SIGINT finishes the step, writes a checkpoint and says how to resume; resuming gives the uninterrupted model") {
  const std::string m = model("interrupted"), log = kWork + "/interrupted.log", err = kWork + "/interrupted.err";
  std::remove(log.c_str());
  const std::string command = kBinary + " " + kTrain + " --epochs 100000 --keep last --log " + log + " --model " + m;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // Wait until two epochs are logged, then interrupt.
  for (int i = 0; i < 600 && lines(slurp(log)) < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (lines(slurp(log)) < 2) ::kill(child, SIGKILL);
  REQUIRE(lines(slurp(log)) >= 2);
  ::kill(child, SIGINT);
  int raw = 0;
  bool ended = false;
  for (int i = 0; i < 600 && !ended; ++i) {  // a minute at most, then the child is ended and the test fails
    ended = ::waitpid(child, &raw, WNOHANG) == child;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &raw, 0);
  }
  REQUIRE_MESSAGE(ended, "ntp train did not stop on SIGINT");
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 128 + SIGINT);
  const std::string message = slurp(err);
  CHECK(message.find("checkpoint written to " + m + ".ckpt") != std::string::npos);
  const auto resume_at = message.find("resume with: ntp train ");
  REQUIRE(resume_at != std::string::npos);
  CHECK(message.find("--resume", resume_at) != std::string::npos);
  // Resume to two epochs past the stop, and compare with a run that never stopped.
  const int done = std::stoi(message.substr(message.find("stopped after epoch ") + 20));
  const std::string epochs = " --epochs " + std::to_string(done + 2);
  const Run resumed = ntp(kTrain + epochs + " --keep last --resume --model " + m);
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  const Run straight = ntp(kTrain + epochs + " --keep last --model " + model("straight"));
  REQUIRE_MESSAGE(straight.status == 0, straight.err);
  CHECK(slurp(m) == slurp(model("straight")));
}

TEST_CASE("--l2 with several values trains one model each and keeps the best on dev; --resume continues it") {
  const std::string choose = std::string(kTrain).replace(kTrain.find("--l2 0.0001"), 11, "--l2 0.0001,0.001");
  const Run chosen = ntp(loud(choose) + " --epochs 2 --log " + kWork + "/choice.log --model " + model("choice"));
  REQUIRE_MESSAGE(chosen.status == 0, chosen.err);
  CHECK(chosen.err.find("L2 0.0001 (1 of 2)") != std::string::npos);
  CHECK(chosen.err.find("L2 0.001 (2 of 2)") != std::string::npos);
  const std::size_t at = chosen.err.find("L2 chosen on dev: ");
  REQUIRE(at != std::string::npos);
  const std::string value = chosen.err.substr(at + 18, chosen.err.find(' ', at + 18) - at - 18);
  CHECK((value == "0.0001" || value == "0.001"));
  CHECK(chosen.err.find("(dev mrr on 33 atoms: 0.0001 0.", at) != std::string::npos);
  for (const std::string v : {"0.0001", "0.001"}) {
    CHECK(!std::ifstream(model("choice") + ".l2-" + v).good());  // the candidates' files are gone
    // Each candidate's own log: the kept one's at --log, the other's beside it with its value.
    CHECK(lines(slurp(v == value ? kWork + "/choice.log" : kWork + "/choice.log.l2-" + v)) == 2);
    CHECK(std::ifstream(kWork + "/choice.log.l2-" + v).good() == (v != value));
  }
  // The chosen model is that value's run alone; resuming continues it.
  const Run alone = ntp(std::string(kTrain).replace(kTrain.find("--l2 0.0001"), 11, "--l2 " + value) +
                        " --epochs 3 --model " + model("alone"));
  REQUIRE_MESSAGE(alone.status == 0, alone.err);
  const Run more = ntp(loud(choose) + " --epochs 3 --resume --model " + model("choice"));
  REQUIRE_MESSAGE(more.status == 0, more.err);
  CHECK(more.err.find("resuming from " + model("choice") + ".ckpt after epoch 2") != std::string::npos);
  CHECK(more.err.find("L2 chosen on dev") == std::string::npos);
  CHECK(slurp(model("choice")) == slurp(model("alone")));
  // Without dev facts the run holds a tenth of its training facts out,
  // chooses on them, and trains on all of them with the values chosen ...
  const std::string dev = " --dev " + kFamily + "/dev.nl";
  const std::string no_dev = std::string(choose).replace(choose.find(dev), dev.size(), "");
  REQUIRE(no_dev.find("--dev") == std::string::npos);
  const Run carved = ntp(loud(no_dev) + " --epochs 1 --model " + model("carved"));
  REQUIRE_MESSAGE(carved.status == 0, carved.err);
  CHECK(carved.err.find("no dev facts: choosing on 33 of 334 training facts held out, then training on all") != std::string::npos);
  CHECK(carved.err.find("L2 chosen on dev: ") != std::string::npos);
  CHECK(carved.err.find("dev held out of the training facts: 33 of 334 training facts (seed ") != std::string::npos);
  CHECK(!std::ifstream(model("carved") + ".dev-choice"));
  CHECK(!std::ifstream(model("carved") + ".dev-choice.ckpt"));
  // ... unless told not to: then nothing is chosen, the first value alone.
  const Run first = ntp(loud(no_dev) + " --epochs 1 --dev-from-train=false --model " + model("first"));
  REQUIRE_MESSAGE(first.status == 0, first.err);
  CHECK(first.err.find("L2 chosen") == std::string::npos);
  CHECK(first.err.find("(1 of 2)") == std::string::npos);
  const Run bad = ntp(std::string(kTrain).replace(kTrain.find("--l2 0.0001"), 11, "--l2 0.0001,") + " --model " + model("never"));
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--l2 is a number or several separated by commas, got '0.0001,'") != std::string::npos);
}

TEST_CASE("with dev facts, mined rules are tried beside the model's score and kept when dev says so") {
  const Run trained = ntp(loud(kTrain) + " --epochs 2 --test " + kFamily + "/test.nl --model " + model("mined_rules"));
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  CHECK(std::regex_search(trained.err, std::regex("proof search width chosen on dev: (1|2|4|8) \\(dev mrr of the proofs alone on 33 atoms: 1 [01]\\.[0-9]{4}, 2 ")));
  const std::size_t at = trained.err.find("mined rules, on dev: ");
  REQUIRE(at != std::string::npos);
  const bool kept = trained.err.compare(at + 21, 5, "kept,") == 0;
  CHECK((kept || trained.err.compare(at + 21, 9, "not kept:") == 0));
  CHECK(std::regex_search(trained.err.substr(at), std::regex("model alone [01]\\.[0-9]{4}, rules first")));  // an MRR
  CHECK(trained.err.find(", rules first ", at) != std::string::npos);
  CHECK(trained.err.find(", weight 0.5 ", at) != std::string::npos);  // 84 constants: the finite weights too
  const std::string eval = "eval --model " + model("mined_rules") + " --protocol ranking --test " + kFamily + "/test.nl";
  const Run with_rules = ntp(eval);
  REQUIRE_MESSAGE(with_rules.status == 0, with_rules.err);
  CHECK((with_rules.out.find("mined rules") != std::string::npos) == kept);
  const Run proofs = ntp(eval + " --score proof");
  CHECK(proofs.out.find("mined rules") == std::string::npos);
  MESSAGE(trained.err.substr(at));
  // --mined-rules=false: not tried.
  const Run alone = ntp(loud(kTrain) + " --epochs 2 --mined-rules=false --model " + model("alone_no_rules"));
  REQUIRE_MESSAGE(alone.status == 0, alone.err);
  CHECK(alone.err.find("mined rules") == std::string::npos);
}

TEST_CASE("--templates mined: the run mines its facts, says which shape dev chose, and the rules start from them") {
  std::string options = kTrain;
  options.replace(options.find(kFamily + "/family.nlt"), (kFamily + "/family.nlt").size(), "mined");
  const Run trained = ntp(loud(options) + " --epochs 2 --mined-rules=false --model " + model("mined_templates"));
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  CHECK(std::regex_search(trained.err, std::regex("templates mined from the training facts: [0-9]+ rules, (chains|one-atom) "
                                                  "\\(dev mrr on 33 atoms: chains [01]\\.[0-9]{4}, one-atom [01]\\.[0-9]{4}\\); "
                                                  "a goal tries the (10|[1-9]) nearest")));
  CHECK(trained.err.find("templates chosen") == std::string::npos);  // mined already: nothing to choose
  const Run rules = ntp("rules --model " + model("mined_templates"));
  REQUIRE_MESSAGE(rules.status == 0, rules.err);
  CHECK(rules.out.find("started from") != std::string::npos);
  // --k-rules given: kept as given.
  const Run given = ntp(loud(options) + " --epochs 1 --mined-rules=false --k-rules 2 --model " + model("mined_k2"));
  REQUIRE_MESSAGE(given.status == 0, given.err);
  CHECK(given.err.find("a goal tries the 2 nearest") != std::string::npos);
}

TEST_CASE("--templates FILE with dev facts: a prover started from mined rules is trained too, the better on dev kept") {
  std::string options = kTrain;
  options.replace(options.find(" --mined-templates=false"), 24, "");
  const Run chosen = ntp(loud(options) + " --epochs 2 --mined-rules=false --log " + kWork + "/templates.log --model " +
                         model("templates_choice"));
  REQUIRE_MESSAGE(chosen.status == 0, chosen.err);
  CHECK(chosen.err.find("templates: the file's (1 of 2)") != std::string::npos);
  CHECK(std::regex_search(chosen.err, std::regex("templates: mined from the training facts \\([0-9]+ rules, .*\\) \\(2 of 2\\)")));
  for (const std::string candidate : {"file", "mined"})
    CHECK(std::regex_search(chosen.err, std::regex("templates " + candidate + ": dev mrr [01]\\.[0-9]{4} \\(proofs alone [01]\\.[0-9]{4}\\)")));
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(chosen.err, found, std::regex("templates chosen on dev: (file|mined) \\(dev mrr on 33 atoms: "
                                                    "file [01]\\.[0-9]{4}, mined [01]\\.[0-9]{4}\\); proofs alone: "
                                                    "file [01]\\.[0-9]{4}, mined [01]\\.[0-9]{4}; the final (models within "
                                                    "noise: the better proofs|model clearly better) kept; mined: [0-9]+ rules"));
    return found;
  }();
  REQUIRE(!m.empty());
  const std::string kept = m[1];
  for (const std::string candidate : {"file", "mined"}) {
    CHECK(!std::ifstream(model("templates_choice") + "." + candidate + "-templates").good());  // the candidates' files are gone
    CHECK(std::ifstream(kWork + "/templates.log." + candidate + "-templates").good() == (candidate != kept));
  }
  CHECK(lines(slurp(kWork + "/templates.log")) == 2);
  const Run rules = ntp("rules --model " + model("templates_choice"));
  REQUIRE_MESSAGE(rules.status == 0, rules.err);
  CHECK((rules.out.find("started from") != std::string::npos) == (kept == "mined"));
  // --mined-templates=false: the file's alone.
  const Run alone = ntp(loud(kTrain) + " --epochs 1 --mined-rules=false --model " + model("templates_alone"));
  REQUIRE_MESSAGE(alone.status == 0, alone.err);
  CHECK(alone.err.find("templates chosen") == std::string::npos);
}
