// ann/distance.h: the squared Euclidean distance between float vectors, with
// the widest vector code the CPU offers, and a prefetch hint. Inner products
// and other metrics are left out: the prover compares embeddings by L2 only.
//
// The library is compiled for the baseline of its architecture (on x86-64,
// SSE2), so one binary runs on every CPU of it; the distance kernels, where
// nearest-neighbour search spends its time, are compiled once per vector
// instruction set (AVX-512, AVX, SSE2) and the widest the CPU runs is chosen
// at the first call. Every kernel adds in the same order, so the choice never
// changes a result, only its speed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ann {

// sum_i (a_i - b_i)^2 over d floats.
float l2_squared(const float* a, const float* b, int d);

// out[j] = l2_squared(q, rows + ids[j] * stride, d) for j < n: the distances
// from one query to n rows of a row-major table (stride floats per row), the
// rows a few steps ahead requested from memory while one is computed. One call
// per batch keeps the cost of choosing a kernel off each distance.
void l2_squared_to_rows(const float* q, const float* rows, std::size_t stride, const int* ids, int n, int d,
                        float* out);

// The kernel in use: "AVX-512", "AVX" or "SSE2" on x86-64, "generic" elsewhere.
// The environment variable NTP_VECTOR_CODE, read at the first call, names a
// narrower one (to measure or test it on a wide CPU).
const char* vector_code();

// The kernels this CPU can run, widest first.
std::vector<std::string> runnable_vector_codes();

// Uses the named kernel from now on; false (and no change) if this CPU cannot
// run it or no kernel has that name. Safe while other threads compute
// distances: each call reads the kernel once, and every kernel gives the
// same results.
bool use_vector_code(const std::string& name);

// Asks for the cache lines of `bytes` bytes starting at `p` (read, keep).
inline void prefetch(const void* p, int bytes) {
  const char* c = static_cast<const char*>(p);
  for (int off = 0; off < bytes; off += 64) __builtin_prefetch(c + off, 0, 3);
}

}  // namespace ann
