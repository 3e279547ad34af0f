// ntp/kb/build_info.h: which build of the library this is, so that every
// figure it prints (`ntp --version`, --profile, --log) can be traced to it.
#pragma once

#include <string>

namespace ntp {

struct BuildInfo {
  std::string version;    // the project's version, "0.1.0"
  std::string commit;     // `git describe --always --dirty` when configured; "unknown" outside git
  std::string target;     // "native" (-march of the building machine) or "portable" (baseline x86-64)
  std::string compiled_for;  // the widest SIMD the compiler was allowed everywhere: "SSE2" (portable), "AVX-512", ...
  std::string vector_code;   // the distance kernels chosen at run time for this CPU: "AVX-512", "AVX", "SSE2"
  int openmp_threads = 1;   // threads OpenMP may use now
};

BuildInfo build_info();
// One line: "ntp 0.1.0 (commit abc1234, portable build for SSE2, AVX-512 distance kernels, 2 OpenMP threads)".
std::string build_line();

}  // namespace ntp
