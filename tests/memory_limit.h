// tests/memory_limit.h: an RAII cap on the test process's address space, so
// that a test can check that damaged input is refused *before* a large
// allocation: under the cap such an allocation throws std::bad_alloc (which
// a CHECK_THROWS_AS(..., std::runtime_error) then reports) instead of
// quietly succeeding on an overcommitting kernel.
//
// AddressSanitizer and ThreadSanitizer reserve terabytes of shadow memory and
// cannot run under such a cap, so in their builds the cap is not set
// (kMemoryLimitWorks is false); the sanitizer's allocator then reports huge
// allocations itself.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NTP_TEST_SHADOW_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NTP_TEST_SHADOW_MEMORY 1
#endif
#endif

#ifdef NTP_TEST_SHADOW_MEMORY
constexpr bool kMemoryLimitWorks = false;
#else
constexpr bool kMemoryLimitWorks = true;
#endif

// Caps the address space at what the process maps now plus `extra` bytes,
// and restores the previous cap when it goes out of scope.
class MemoryLimit {
 public:
  explicit MemoryLimit(std::size_t extra) {
    if (!kMemoryLimitWorks || getrlimit(RLIMIT_AS, &saved_) != 0) return;
    std::size_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;  // first field: total program size, in pages
    if (pages == 0) return;
    rlimit capped = saved_;
    capped.rlim_cur = static_cast<rlim_t>(pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) + extra);
    if (saved_.rlim_max != RLIM_INFINITY && capped.rlim_cur > saved_.rlim_max) capped.rlim_cur = saved_.rlim_max;
    active_ = setrlimit(RLIMIT_AS, &capped) == 0;
  }
  ~MemoryLimit() {
    if (active_) setrlimit(RLIMIT_AS, &saved_);
  }
  MemoryLimit(const MemoryLimit&) = delete;
  MemoryLimit& operator=(const MemoryLimit&) = delete;
  bool active() const { return active_; }

 private:
  rlimit saved_{};
  bool active_ = false;
};

// True when a `bytes`-byte allocation fails: the check that a MemoryLimit
// bites (the pointer goes through a volatile so the allocation is not elided).
inline bool allocation_fails(std::size_t bytes) {
  try {
    char* volatile p = new char[bytes];
    delete[] p;
    return false;
  } catch (const std::bad_alloc&) {
    return true;
  }
}
