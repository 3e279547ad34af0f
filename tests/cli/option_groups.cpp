#include "option_groups.h"

#include "ntp/train/option_table.h"

#include <algorithm>

std::vector<std::string> train_group_titles() {
  std::vector<std::string> titles;
  for (ntp::OptionGroup group : ntp::option_groups()) titles.push_back(ntp::option_group_title(group));
  return titles;
}

std::vector<SettingInGroup> train_settings_in_groups() {
  const std::vector<ntp::OptionGroup>& groups = ntp::option_groups();
  std::vector<SettingInGroup> settings;
  for (const ntp::TrainOption& option : ntp::train_option_table()) {
    const auto at = std::find(groups.begin(), groups.end(), option.group);
    settings.push_back({option.name, static_cast<std::size_t>(at - groups.begin())});
  }
  return settings;
}
