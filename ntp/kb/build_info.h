// ntp/kb/build_info.h: which build of the library this is, so that every
// figure it prints (`ntp --version`, --profile, --log) can be traced to it.
#pragma once

#include <string>

namespace ntp {

struct BuildInfo {
  std::string version;    // the project's version, "0.1.0"
  std::string commit;     // `git describe --always --dirty` when configured; "unknown" outside git
  std::string target;     // "native" (-march of the building machine) or "portable" (baseline x86-64)
  std::string vector_code;  // the widest SIMD the compiled code uses: "AVX-512", "AVX2", "SSE2", ...
  int openmp_threads = 1;   // threads OpenMP may use now
};

BuildInfo build_info();
// One line: "ntp 0.1.0 (commit abc1234, native build, AVX2 vector code, 2 OpenMP threads)".
std::string build_line();

}  // namespace ntp
