// ntp/kb/build_info.cpp: the build's identity, from what CMake and the
// compiler say about this translation unit.
#include "ntp/kb/build_info.h"

#include <omp.h>

#ifndef NTP_VERSION
#define NTP_VERSION "unknown"
#endif
#ifndef NTP_COMMIT
#define NTP_COMMIT "unknown"
#endif

namespace ntp {

namespace {

// The widest vector instructions this file was compiled for; the library is
// compiled with one set of flags, so it speaks for all of it.
const char* compiled_vector_code() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__)
  return "AVX2";
#elif defined(__AVX__)
  return "AVX";
#elif defined(__SSE4_2__)
  return "SSE4.2";
#elif defined(__SSE2__)
  return "SSE2";
#elif defined(__ARM_NEON)
  return "NEON";
#else
  return "scalar";
#endif
}

}  // namespace

BuildInfo build_info() {
  BuildInfo b;
  b.version = NTP_VERSION;
  b.commit = NTP_COMMIT;
#ifdef NTP_NATIVE_BUILD
  b.target = "native";
#else
  b.target = "portable";
#endif
  b.vector_code = compiled_vector_code();
  b.openmp_threads = omp_get_max_threads();
  return b;
}

std::string build_line() {
  const BuildInfo b = build_info();
  return "ntp " + b.version + " (commit " + b.commit + ", " + b.target + " build, " + b.vector_code +
         " vector code, " + std::to_string(b.openmp_threads) + " OpenMP thread" + (b.openmp_threads == 1 ? "" : "s") + ")";
}

}  // namespace ntp
