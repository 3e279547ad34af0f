// ntp/kb/fnv1a.h: the 64-bit FNV-1a hash, one byte at a time. Fingerprints
// that a resumed run compares with what it recorded (the data a run trains
// on: train/settings.h; a model file's bytes: train/checkpoint.h): cheap,
// and no cryptography is needed to tell "the same" from "changed".
#pragma once

#include <cstddef>
#include <cstdint>

namespace ntp {

constexpr std::uint64_t kFnv1aOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnv1aPrime = 1099511628211ull;

// `hash` carried on over `n` more bytes.
inline std::uint64_t fnv1a(std::uint64_t hash, const unsigned char* bytes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) hash = (hash ^ bytes[i]) * kFnv1aPrime;
  return hash;
}

}  // namespace ntp
