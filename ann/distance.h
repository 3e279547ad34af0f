// ann/distance.h: the squared Euclidean distance between two float vectors,
// written so that the compiler vectorises it (no intrinsics), and a prefetch
// hint. Inner products and other metrics are left out: the prover compares
// embeddings by L2 only.
#pragma once

namespace ann {

// sum_i (a_i - b_i)^2. Sixteen independent partial sums let the compiler use
// full-width vector registers without reassociating a single float sum (which
// -O3 alone may not do); the tail is a plain loop.
inline float l2_squared(const float* __restrict a, const float* __restrict b, int d) {
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= d; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float t = a[i + j] - b[i + j];
      acc[j] += t * t;
    }
  }
  float tail = 0.0f;
  for (; i < d; ++i) {
    const float t = a[i] - b[i];
    tail += t * t;
  }
  for (int j = 0; j < kLanes / 2; ++j) acc[j] += acc[j + kLanes / 2];
  for (int j = 0; j < kLanes / 4; ++j) acc[j] += acc[j + kLanes / 4];
  return (acc[0] + acc[2]) + (acc[1] + acc[3]) + tail;
}

// Asks for the cache lines of `bytes` bytes starting at `p` (read, keep).
inline void prefetch(const void* p, int bytes) {
  const char* c = static_cast<const char*>(p);
  for (int off = 0; off < bytes; off += 64) __builtin_prefetch(c + off, 0, 3);
}

}  // namespace ann
