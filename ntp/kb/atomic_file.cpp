// ntp/kb/atomic_file.cpp: write to a temporary file, sync, rename (see atomic_file.h).
#include "ntp/kb/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace ntp {

namespace {

// Forces a written file (or a directory's entries) to disk. Returns false on failure.
bool sync_to_disk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp";
  // A write that fails (a full disk) leaves the stream failed and errno
  // saying why; the file is then removed and the old one stays.
  auto fail_if_bad = [&](std::ofstream& out) {
    if (out) return;
    const std::string cause = errno != 0 ? std::strerror(errno) : "an unknown error";
    out.close();
    std::remove(tmp.c_str());
    throw std::runtime_error(tmp + ": write failed: " + cause);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp + ": cannot open for writing: " + std::strerror(errno));
    try {
      errno = 0;
      write(out);
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    fail_if_bad(out);
    out.close();  // closing flushes, and can be where a full disk shows
    fail_if_bad(out);
  }
  if (!sync_to_disk(tmp)) {
    std::remove(tmp.c_str());
    throw std::runtime_error(tmp + ": cannot flush to disk");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename " + tmp + " into place");
  }
  sync_to_disk(directory_of(path));  // best effort: the rename itself is already atomic
}

}  // namespace ntp
