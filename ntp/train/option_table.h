// ntp/train/option_table.h: the settings of a training run by name, one table
// for every front end (`ntp train`, the Python module): each setting's name,
// the kind of value it takes, its help text, its default, and how its value,
// given as text, is checked and stored into ModelOptions, TrainOptions or
// RunOptions. A front end lists what its user gave and calls
// apply_train_options(); it registers its own options from the table.
//
// Left out, because they are not settings of the run: the files read (the
// facts, templates, dev and test atoms), the model path, the thread count and
// whether progress is shown.
#pragma once

#include "ntp/train/options.h"

#include <string>
#include <vector>

namespace ntp {

// Everything train() takes besides the data, as the front ends (`ntp
// train`, the Python module) take it: the library's option structs at their
// defaults but for one, L2, which the front ends choose on dev between 1e-4
// and 1e-3
// (RunOptions::l2_choices). No one value suits the small benchmarks:
// Nations wants its embeddings regularised 10x harder than Countries S3 and
// Kinship can take (docs/RESULTS.md, "Choosing L2 on dev"); the choice
// doubles the training of a run given dev facts. A program that fills the
// structs itself trains TrainOptions::l2 alone unless it lists values.
struct TrainSettings {
  ModelOptions model;
  TrainOptions train;
  RunOptions run;
  TrainSettings() {
    run.l2_choices = {1e-4, 1e-3};
    run.dev_from_train = true;
    run.mined_templates_on_dev = true;
  }
};

// The value a setting takes, as text:
//   Integer  "100" (the seed: up to 2^64 - 1)
//   Number   "0.01", "1e-4"
//   Numbers  "1e-4", or several to choose from on dev: "1e-4,1e-3"
//   Name     "adam", "pair", a file name
//   Switch   "true" or "false": a setting that is on by default (complex)
//   Flag     "true" or "false": off unless given (a command line gives it bare)
enum class OptionKind { Integer, Number, Numbers, Name, Switch, Flag };

// What a setting is about, as `ntp train --help` and docs/USAGE.md group them.
enum class OptionGroup {
  Model,          // what is learnt: dimension, ComplEx beside the prover, rule slots
  ProofSearch,    // how proofs are searched: depth, facts and rules kept per or-step, the index
  Learning,       // the descent: epochs, batch, learning rate, L2, negatives
  ComplExEpochs,  // epochs that train ComplEx alone before the proofs
  Dev,            // measurements on dev during training, and which model is kept
  Output,         // log, profile, resume
};
// "Model", "Proof search", ...: a group's title (`--help` writes "Model options:").
const char* option_group_title(OptionGroup group);
// Every group, in the order `--help` lists them.
const std::vector<OptionGroup>& option_groups();

struct TrainOption {
  const char* name;  // words joined by '-': "k-rules", "recall-every"
  OptionGroup group;
  OptionKind kind;
  const char* help;
  // The setting's value in `settings` as text (numbers with six significant
  // digits): the default, from a default TrainSettings.
  std::string (*get)(const TrainSettings& settings);
  // Stores `value` into `settings`; throws std::invalid_argument saying what
  // the value should be ("is fact or pair, got 'x'"), without the name.
  void (*set)(TrainSettings& settings, const std::string& value);
};

// Every setting: model, then learning, then run settings (`ntp train --help`
// lists them by group, in this order within each).
const std::vector<TrainOption>& train_option_table();
// The setting called `name` ('_' read as '-'), or null.
const TrainOption* find_train_option(const std::string& name);

// How a front end writes a setting's name in messages.
//   CommandLine  "--k-rules"
//   Keyword      "k_rules" (a Python keyword argument)
enum class OptionSpelling { CommandLine, Keyword };
std::string spell_option(const std::string& name, OptionSpelling spelling);

struct OptionText {
  std::string name;   // as find_train_option takes it
  std::string value;  // as TrainOption::set takes it
};

// Sets each given option in turn on `settings` (which holds the defaults and
// what the front end set itself, such as the model path), then checks them
// together: combine needs complex, eval-every needs dev atoms (`has_dev`),
// and each struct's check_options(). Throws std::invalid_argument naming the
// option as `spelling` writes it: an unknown name, a bad value, a bad pair.
void apply_train_options(TrainSettings& settings, const std::vector<OptionText>& given, bool has_dev,
                         OptionSpelling spelling);

}  // namespace ntp
