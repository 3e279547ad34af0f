// ann/distance.cpp: the distance kernels, one per vector instruction set, and
// the choice among them (see distance.h).
#include "ann/distance.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ann {
namespace {

#if defined(__GNUC__)
#define ANN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ANN_ALWAYS_INLINE inline
#endif

#if defined(__GNUC__)
// sum_i (a_i - b_i)^2 on GCC/Clang vector types of 16, 8 and 4 floats rather
// than intrinsics: in a function compiled for AVX-512 a 16-float vector is one
// zmm register, for AVX two ymm, for SSE2 four xmm, and the sums run in the
// same order in all three, so every kernel gives the same bits. A plain loop
// with 16 partial sums is vectorised too, but GCC then prefers 256-bit
// registers on AVX-512 CPUs; this form measured 1.4-2x faster than that loop
// and than hnswlib's AVX-512 kernel at d = 30, 60 and 300 (random rows, not
// cached). Always inlined, so that each kernel below is compiled whole for
// its own instruction set.
typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));
typedef float V4 __attribute__((vector_size(16)));

// acc += (a - b)^2 lane by lane over one vector V of floats (unaligned
// loads). By reference: vectors wider than the baseline must not cross a
// function boundary by value.
template <class V>
ANN_ALWAYS_INLINE void add_squared_difference(V& acc, const float* a, const float* b) {
  V x, y;
  std::memcpy(&x, a, sizeof(x));
  std::memcpy(&y, b, sizeof(y));
  const V t = x - y;
  acc += t * t;
}

ANN_ALWAYS_INLINE float l2_body(const float* a, const float* b, int d) {
  V16 acc16 = {};
  int i = 0;
  for (; i + 16 <= d; i += 16) add_squared_difference(acc16, a + i, b + i);
  V8 acc8 = {};
  if (i + 8 <= d) {
    add_squared_difference(acc8, a + i, b + i);
    i += 8;
  }
  V4 acc4 = {};
  if (i + 4 <= d) {
    add_squared_difference(acc4, a + i, b + i);
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
}
#else
ANN_ALWAYS_INLINE float l2_body(const float* a, const float* b, int d) {
  float sum = 0.0f;
  for (int i = 0; i < d; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}
#endif

constexpr int kPrefetchAhead = 4;  // rows requested ahead of the one being computed

ANN_ALWAYS_INLINE void rows_body(const float* q, const float* rows, std::size_t stride, const int* ids, int n,
                                 int d, float* out) {
  const int bytes = d * static_cast<int>(sizeof(float));
  for (int j = 0; j < n && j < kPrefetchAhead; ++j) prefetch(rows + static_cast<std::size_t>(ids[j]) * stride, bytes);
  for (int j = 0; j < n; ++j) {
    if (j + kPrefetchAhead < n) prefetch(rows + static_cast<std::size_t>(ids[j + kPrefetchAhead]) * stride, bytes);
    out[j] = l2_body(q, rows + static_cast<std::size_t>(ids[j]) * stride, d);
  }
}

// One kernel: a name and its two entry points, compiled for one instruction set.
struct Kernel {
  const char* name;
  float (*pair)(const float*, const float*, int);
  void (*rows)(const float*, const float*, std::size_t, const int*, int, int, float*);
  bool (*runs_here)();
};

#define ANN_KERNEL(suffix, attribute)                                                                    \
  attribute float pair_##suffix(const float* a, const float* b, int d) { return l2_body(a, b, d); }     \
  attribute void rows_##suffix(const float* q, const float* rows, std::size_t stride, const int* ids,   \
                               int n, int d, float* out) {                                              \
    rows_body(q, rows, stride, ids, n, d, out);                                                         \
  }

ANN_KERNEL(baseline, )
bool always() { return true; }

#if defined(__x86_64__) && defined(__GNUC__)
ANN_KERNEL(avx512, __attribute__((target("avx512f"))))
ANN_KERNEL(avx, __attribute__((target("avx"))))
bool has_avx512() { return __builtin_cpu_supports("avx512f"); }
bool has_avx() { return __builtin_cpu_supports("avx"); }
// Widest first; the last runs everywhere.
constexpr Kernel kKernels[] = {
    {"AVX-512", pair_avx512, rows_avx512, has_avx512},
    {"AVX", pair_avx, rows_avx, has_avx},
    {"SSE2", pair_baseline, rows_baseline, always},
};
#else
constexpr Kernel kKernels[] = {{"generic", pair_baseline, rows_baseline, always}};
#endif
constexpr int kKernelCount = static_cast<int>(sizeof(kKernels) / sizeof(kKernels[0]));

const Kernel* find_runnable(const char* name) {
  for (const Kernel& k : kKernels)
    if (std::strcmp(k.name, name) == 0) return k.runs_here() ? &k : nullptr;
  return nullptr;
}

// The widest kernel this CPU runs, or the one NTP_VECTOR_CODE names.
const Kernel* pick() {
  const Kernel* widest = &kKernels[kKernelCount - 1];
  for (const Kernel& k : kKernels)
    if (k.runs_here()) {
      widest = &k;
      break;
    }
  const char* wanted = std::getenv("NTP_VECTOR_CODE");
  if (wanted == nullptr || *wanted == '\0') return widest;
  if (const Kernel* k = find_runnable(wanted)) return k;
  std::fprintf(stderr, "warning: NTP_VECTOR_CODE=%s is not a vector code this CPU runs; using %s\n", wanted,
               widest->name);
  return widest;
}

std::atomic<const Kernel*> chosen{nullptr};

const Kernel& kernel() {
  const Kernel* k = chosen.load(std::memory_order_relaxed);
  if (k != nullptr) return *k;
  // Racing first calls all pick the same kernel; the first store wins.
  const Kernel* picked = pick();
  const Kernel* expected = nullptr;
  chosen.compare_exchange_strong(expected, picked, std::memory_order_relaxed);
  return *chosen.load(std::memory_order_relaxed);
}

}  // namespace

float l2_squared(const float* a, const float* b, int d) { return kernel().pair(a, b, d); }

void l2_squared_to_rows(const float* q, const float* rows, std::size_t stride, const int* ids, int n, int d,
                        float* out) {
  kernel().rows(q, rows, stride, ids, n, d, out);
}

const char* vector_code() { return kernel().name; }

std::vector<std::string> runnable_vector_codes() {
  std::vector<std::string> names;
  for (const Kernel& k : kKernels)
    if (k.runs_here()) names.push_back(k.name);
  return names;
}

bool use_vector_code(const std::string& name) {
  const Kernel* k = find_runnable(name.c_str());
  if (k == nullptr) return false;
  chosen.store(k, std::memory_order_relaxed);
  return true;
}

}  // namespace ann
