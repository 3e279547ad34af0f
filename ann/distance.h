// ann/distance.h: the squared Euclidean distance between two float vectors,
// and a prefetch hint. Inner products and other metrics are left out: the
// prover compares embeddings by L2 only.
#pragma once

#include <cstring>

namespace ann {

// sum_i (a_i - b_i)^2, on GCC/Clang vector types of 16, 8 and 4 floats rather
// than intrinsics: the compiler maps them to zmm/ymm/xmm registers where the
// CPU has them and splits them where it does not. A plain loop with 16
// partial sums is vectorised too, but GCC then prefers 256-bit registers on
// AVX-512 CPUs; this form measured 1.4-2x faster than that loop and than
// hnswlib's AVX-512 kernel at d = 30, 60 and 300 (random rows, not cached).
inline float l2_squared(const float* a, const float* b, int d) {
#if defined(__GNUC__)
  typedef float V16 __attribute__((vector_size(64)));
  typedef float V8 __attribute__((vector_size(32)));
  typedef float V4 __attribute__((vector_size(16)));
  V16 acc16 = {};
  int i = 0;
  for (; i + 16 <= d; i += 16) {
    V16 x, y;
    std::memcpy(&x, a + i, sizeof(x));  // unaligned loads
    std::memcpy(&y, b + i, sizeof(y));
    const V16 t = x - y;
    acc16 += t * t;
  }
  V8 acc8 = {};
  if (i + 8 <= d) {
    V8 x, y;
    std::memcpy(&x, a + i, sizeof(x));
    std::memcpy(&y, b + i, sizeof(y));
    const V8 t = x - y;
    acc8 = t * t;
    i += 8;
  }
  V4 acc4 = {};
  if (i + 4 <= d) {
    V4 x, y;
    std::memcpy(&x, a + i, sizeof(x));
    std::memcpy(&y, b + i, sizeof(y));
    const V4 t = x - y;
    acc4 = t * t;
    i += 4;
  }
  float tail = 0.0f;
  for (; i < d; ++i) {
    const float t = a[i] - b[i];
    tail += t * t;
  }
  const V8 half = __builtin_shufflevector(acc16, acc16, 0, 1, 2, 3, 4, 5, 6, 7) +
                  __builtin_shufflevector(acc16, acc16, 8, 9, 10, 11, 12, 13, 14, 15) + acc8;
  const V4 quarter = __builtin_shufflevector(half, half, 0, 1, 2, 3) +
                     __builtin_shufflevector(half, half, 4, 5, 6, 7) + acc4;
  return (quarter[0] + quarter[2]) + (quarter[1] + quarter[3]) + tail;
#else
  float sum = 0.0f;
  for (int i = 0; i < d; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
#endif
}

// Asks for the cache lines of `bytes` bytes starting at `p` (read, keep).
inline void prefetch(const void* p, int bytes) {
  const char* c = static_cast<const char*>(p);
  for (int off = 0; off < bytes; off += 64) __builtin_prefetch(c + off, 0, 3);
}

}  // namespace ann
