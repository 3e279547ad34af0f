// ntp/kb/atomic_file.h: writing a file so that it is either the old one or the
// complete new one, whatever happens (a crash, a power loss, a full disk).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace ntp {

// Calls `write` on `path.tmp`, flushes it to disk (fsync), renames it over
// `path` and syncs the directory. Throws std::runtime_error naming the file
// if any of it fails, and then leaves no `path.tmp` behind.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace ntp
