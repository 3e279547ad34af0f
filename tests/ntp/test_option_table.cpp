// Tests of the training settings by name (ntp/train/option_table.h): what the
// CLI and the Python module both read their options through.
#include "ntp/train/option_table.h"

#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::string message_of(ntp::TrainSettings& s, const std::vector<ntp::OptionText>& given, bool has_dev,
                       ntp::OptionSpelling spelling) {
  try {
    ntp::apply_train_options(s, given, has_dev, spelling);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every setting reads back its own default") {
  std::set<std::string> names;
  for (const ntp::TrainOption& option : ntp::train_option_table()) {
    CHECK(names.insert(option.name).second);
    CHECK(std::string(option.help).size() > 5);
    ntp::TrainSettings s;
    const std::string value = option.get(s);
    if (!value.empty()) option.set(s, value);
    CHECK(option.get(s) == value);
    CHECK(ntp::find_train_option(option.name) == &option);
  }
  CHECK(ntp::find_train_option("k_rules") == ntp::find_train_option("k-rules"));
  CHECK(ntp::find_train_option("dimension") == nullptr);
}

TEST_CASE("given options land in their fields, and the seed in both") {
  ntp::TrainSettings s;
  s.run.model_path = "m.ntp";
  ntp::apply_train_options(s,
                           {{"dim", "12"}, {"k_rules", "3"}, {"complex", "false"}, {"lr", "0.25"}, {"mask", "pair"},
                            {"seed", "18446744073709551615"}, {"keep", "last"}, {"attention", "true"}, {"log", "x.log"}},
                           false, ntp::OptionSpelling::Keyword);
  CHECK(s.model.dim == 12);
  CHECK(s.model.prover.k_rules == 3);
  CHECK(!s.model.prover.complex);
  CHECK(s.train.learning_rate == 0.25);
  CHECK(s.train.mask == ntp::TrainingMask::Pair);
  CHECK(s.model.seed == 18446744073709551615ULL);
  CHECK(s.train.seed == s.model.seed);
  CHECK(s.run.keep == ntp::Keep::Last);
  CHECK(s.model.attention);
  CHECK(s.run.log_path == "x.log");
}

TEST_CASE("bad options are named as the front end spells them") {
  ntp::TrainSettings s;
  s.run.model_path = "m.ntp";
  using ntp::OptionSpelling;
  CHECK(message_of(s, {{"dim", "1.5"}}, false, OptionSpelling::CommandLine) == "--dim is an integer, got '1.5'");
  CHECK(message_of(s, {{"recall-every", "x"}}, false, OptionSpelling::Keyword) == "recall_every is an integer, got 'x'");
  CHECK(message_of(s, {{"seed", "-1"}}, false, OptionSpelling::Keyword).find("seed is an integer in 0..") == 0);
  CHECK(message_of(s, {{"lr", " 1"}}, false, OptionSpelling::Keyword) == "lr is a number, got ' 1'");
  CHECK(message_of(s, {{"combine", "median"}}, false, OptionSpelling::CommandLine) ==
        "--combine is max, mean, proof, complex, dev or auto, got 'median'");
  CHECK(message_of(s, {{"frobnicate", "1"}}, false, OptionSpelling::Keyword) == "unknown training option frobnicate");
  ntp::TrainSettings plain;
  plain.run.model_path = "m.ntp";
  CHECK(message_of(plain, {{"complex", "false"}, {"combine", "max"}}, false, OptionSpelling::Keyword) ==
        "combine needs complex (it joins NTP and ComplEx)");
  CHECK(message_of(plain, {{"complex", "false"}, {"complex-epochs", "1"}}, false, OptionSpelling::CommandLine) ==
        "--complex-epochs needs --complex (they train its ComplEx part)");
  CHECK(message_of(s, {{"epochs", "3"}, {"complex-epochs", "4"}}, false, OptionSpelling::Keyword) ==
        "the ComplEx-only epochs must be in 0..epochs (3), got 4");
  {  // each on fresh settings: message_of keeps what it set before a bad value
    const auto fresh = [] {
      ntp::TrainSettings f;
      f.run.model_path = "m.ntp";
      return f;
    };
    ntp::TrainSettings a = fresh(), b = fresh(), c = fresh(), d = fresh(), all = fresh(), l2 = fresh();
    CHECK(message_of(l2, {{"l2-predicates", "-0.5"}}, false, OptionSpelling::CommandLine) ==
          "the predicates' L2 coefficient must be >= 0 (-1 = --l2's), got -0.5");
    CHECK(message_of(a, {{"complex-loss", "all"}}, false, OptionSpelling::CommandLine) ==
          "--complex-loss needs --complex-epochs (it sets how the ComplEx-only epochs learn)");
    CHECK(message_of(b, {{"complex-epochs", "2"}, {"complex-loss", "softmax"}}, false, OptionSpelling::CommandLine) ==
          "--complex-loss is sampled or all, got 'softmax'");
    CHECK(message_of(c, {{"complex-epochs", "2"}, {"complex-loss", "all"}, {"complex-candidates", "-1"}}, false,
                     OptionSpelling::Keyword) ==
          "the ComplEx-only candidates per update must be >= 0 (0 = every constant), got -1");
    CHECK(message_of(d, {{"complex-epochs", "2"}, {"complex-loss", "all"}, {"complex-batch", "0"}}, false,
                     OptionSpelling::Keyword) == "the ComplEx-only batch (positives per 1-vs-all update) must be >= 1, got 0");
    ntp::TrainSettings e = fresh();
    CHECK(message_of(e, {{"complex-epochs", "2"}, {"complex-batch", "100"}}, false, OptionSpelling::CommandLine) ==
          "--complex-batch needs --complex-loss all (it sets the 1-vs-all updates)");
    CHECK(message_of(all, {{"complex-epochs", "2"}, {"complex-loss", "all"}, {"complex-candidates", "100"}}, false,
                     OptionSpelling::Keyword)
              .empty());
    CHECK(all.train.complex_loss == ntp::ComplexLoss::All);
    CHECK(all.train.complex_candidates == 100);
  }
  CHECK(message_of(s, {{"constant-init", "0"}}, false, OptionSpelling::Keyword) ==
        "the constants' initial range must be in (0, 1e6], got 0");
  ntp::TrainSettings dev;
  dev.run.model_path = "m.ntp";
  CHECK(message_of(dev, {{"eval-every", "2"}}, false, OptionSpelling::CommandLine) ==
        "--eval-every needs --dev (the facts to measure on)");
  CHECK(message_of(dev, {{"eval-every", "2"}}, true, OptionSpelling::CommandLine).empty());
  CHECK(message_of(dev, {{"combine", "dev"}}, false, OptionSpelling::CommandLine) ==
        "--combine dev needs --dev (the facts to choose on)");
  ntp::TrainSettings chosen;
  chosen.run.model_path = "m.ntp";
  CHECK(message_of(chosen, {{"combine", "dev"}}, true, OptionSpelling::Keyword).empty());
  CHECK(chosen.run.combine_from == ntp::CombineFrom::Dev);
  CHECK(ntp::find_train_option("combine")->get(chosen) == "dev");
  CHECK(message_of(chosen, {{"combine", "max"}}, true, OptionSpelling::Keyword).empty());  // the last one given wins
  CHECK(chosen.run.combine_from == ntp::CombineFrom::Given);
  CHECK(chosen.model.prover.combine == ntp::Combine::Max);
  CHECK(ntp::find_train_option("combine")->get(chosen) == "max");
  // auto is the default, and needs no dev facts: without them the rule is mean.
  CHECK(ntp::find_train_option("combine")->get(ntp::TrainSettings{}) == "auto");
  CHECK(message_of(chosen, {{"combine", "auto"}}, false, OptionSpelling::Keyword).empty());
  CHECK(chosen.run.combine_from == ntp::CombineFrom::Auto);
  CHECK(chosen.model.prover.combine == ntp::Combine::Mean);
  CHECK(message_of(chosen, {{"combine", "median"}}, true, OptionSpelling::CommandLine) ==
        "--combine is max, mean, proof, complex, dev or auto, got 'median'");
  ntp::TrainSettings odd;
  odd.run.model_path = "m.ntp";
  CHECK(message_of(odd, {{"dim", "3"}}, false, OptionSpelling::Keyword).find("even for ComplEx") != std::string::npos);
}

TEST_CASE("--l2 takes one number, or several to choose from on dev") {
  using ntp::OptionSpelling;
  // The front ends choose between 1e-4 and 1e-3 by default; the library's structs train one value.
  CHECK(ntp::TrainSettings{}.run.l2_choices == std::vector<double>{1e-4, 1e-3});
  CHECK(ntp::find_train_option("l2")->get(ntp::TrainSettings{}) == "0.0001,0.001");
  CHECK(ntp::RunOptions{}.l2_choices.empty());
  ntp::TrainSettings s;
  s.run.model_path = "m.ntp";
  ntp::apply_train_options(s, {{"l2", "0.001"}}, false, OptionSpelling::CommandLine);
  CHECK(s.train.l2 == 0.001);
  CHECK(s.run.l2_choices.empty());
  ntp::apply_train_options(s, {{"l2", "1e-4,1e-3,0.01"}}, true, OptionSpelling::CommandLine);
  CHECK(s.run.l2_choices == std::vector<double>{1e-4, 1e-3, 0.01});
  CHECK(ntp::find_train_option("l2")->get(s) == "0.0001,0.001,0.01");
  ntp::apply_train_options(s, {{"l2", "0.5"}}, true, OptionSpelling::CommandLine);  // one value again: no choice
  CHECK(s.run.l2_choices.empty());
  CHECK(s.train.l2 == 0.5);
  for (const char* bad : {"1e-4,", ",1e-4", "1e-4,,1e-3", "1e-4;1e-3", "1e-4, 1e-3"}) {
    ntp::TrainSettings f;
    f.run.model_path = "m.ntp";
    CHECK(message_of(f, {{"l2", bad}}, true, OptionSpelling::CommandLine) ==
          std::string("--l2 is a number or several separated by commas, got '") + bad + "'");
  }
  ntp::TrainSettings f;
  f.run.model_path = "m.ntp";
  CHECK(message_of(f, {{"l2", "1e-4,-1"}}, true, OptionSpelling::Keyword) ==
        "each L2 coefficient to choose from must be >= 0, got -1");
  CHECK(message_of(f, {{"l2", "0.001,1e-3"}}, true, OptionSpelling::Keyword) ==
        "the L2 coefficients to choose from must differ; 0.001 is given twice");
}
