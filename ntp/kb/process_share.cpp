// ntp/kb/process_share.cpp: a process's share of a group's job (see process_share.h).
#include "ntp/kb/process_share.h"

#include <stdexcept>
#include <string>

namespace ntp {

void check_share(const ProcessShare& share) {
  if (share.count < 1 || share.index < 0 || share.index >= share.count)
    throw std::invalid_argument("process " + std::to_string(share.index) + " of " + std::to_string(share.count) +
                                ": the index must lie in [0, count)");
  if (share.count > 1 && !share.all_gather)
    throw std::invalid_argument("a job shared by " + std::to_string(share.count) + " processes needs all_gather");
}

bool any_process(const ProcessShare& share, bool mine) {
  if (share.alone()) return mine;
  bool any = false;
  for (const Bytes& theirs : share.all_gather(Bytes{static_cast<unsigned char>(mine ? 1 : 0)}))
    any = any || (!theirs.empty() && theirs[0] != 0);
  return any;
}

std::vector<std::size_t> share_items(std::size_t n, const ProcessShare& share) {
  std::vector<std::size_t> mine;
  for (auto i = static_cast<std::size_t>(share.index); i < n; i += static_cast<std::size_t>(share.count)) mine.push_back(i);
  return mine;
}

}  // namespace ntp
