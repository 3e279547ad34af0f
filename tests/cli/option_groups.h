// The training settings' groups, as tests of the `ntp` program need them.
// Kept apart from the library's headers: run_ntp.h's ntp() would clash with
// namespace ntp in one file.
#pragma once

#include <string>
#include <vector>

struct SettingInGroup {
  std::string name;   // "k-rules"
  std::size_t group;  // its group's index in train_group_titles()
};

// "Model", "Proof search", ...: in the order `ntp train --help` lists them.
std::vector<std::string> train_group_titles();
// Every setting of the table (ntp/train/option_table.h) with its group.
std::vector<SettingInGroup> train_settings_in_groups();
