// ann/hnsw_io.cpp: Hnsw's save file and integrity check (see hnsw.h).
//
// File layout, version 1 (little-endian):
//   char[8] "NTPHNSW\0"; uint32 version; int32 n, d, M, ef_construction, ef;
//   uint64 seed; int32 entry, max_level;
//   uint8 levels[n]; float vectors[n * d]; int32 links0[n * (1 + 2M)];
//   uint64 upper_size; int32 upper[upper_size].
// Upper-layer offsets are recomputed from the levels on load.
#include "ann/hnsw.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ann {
namespace {

constexpr char kMagic[8] = {'N', 'T', 'P', 'H', 'N', 'S', 'W', '\0'};
constexpr uint32_t kVersion = 1;

template <class T>
void write_raw(std::ofstream& out, const T* data, size_t count) {
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(sizeof(T) * count));
}

template <class T>
void read_raw(std::istream& in, T* data, size_t count, const std::string& path, const char* what) {
  in.read(reinterpret_cast<char*>(data), static_cast<std::streamsize>(sizeof(T) * count));
  if (!in)
    throw std::runtime_error("Hnsw::load: " + path + ": file ends inside the " + what +
                             "; the file is truncated, rewrite it with Hnsw::save");
}

// Bytes from the read position of `in` to its end, or -1 if it cannot seek.
long long bytes_left(std::istream& in) {
  const std::streampos start = in.tellg();
  if (start == std::streampos(-1) || !in.seekg(0, std::ios::end)) {
    in.clear();
    return -1;
  }
  const long long left = static_cast<long long>(in.tellg() - start);
  in.seekg(start);
  return left;
}

// Refuses a file whose sections, as its header sizes them, are longer than
// the file: a damaged count must be an error, not an allocation.
void check_fits(unsigned long long n, unsigned long long bytes_per_point, long long left, const std::string& path) {
  const unsigned long long room = left > 0 ? static_cast<unsigned long long>(left) : 0;
  if (bytes_per_point > room / n)
    throw std::runtime_error("Hnsw::load: " + path + " declares " + std::to_string(n) + " points of " +
                             std::to_string(bytes_per_point) + " bytes, more than its " + std::to_string(left) +
                             " bytes; the file is truncated or corrupt, rewrite it with Hnsw::save");
}

}  // namespace

void Hnsw::save(const std::string& path) const {
  if (size() == 0) throw std::invalid_argument("Hnsw::save: the index is empty; call build() first");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("Hnsw::save: cannot open " + path + " for writing");
  out.write(kMagic, sizeof(kMagic));
  write_raw(out, &kVersion, 1);
  const int32_t header[5] = {size(), dim(), params_.M, params_.ef_construction, params_.ef};
  write_raw(out, header, 5);
  write_raw(out, &params_.seed, 1);
  const int32_t top[2] = {entry_, max_level_};
  write_raw(out, top, 2);
  write_raw(out, levels_.data(), levels_.size());
  write_raw(out, points_.data(), static_cast<size_t>(points_.size()));
  write_raw(out, links0_.data(), links0_.size());
  const uint64_t upper_size = upper_.size();
  write_raw(out, &upper_size, 1);
  write_raw(out, upper_.data(), upper_.size());
  out.flush();
  if (!out) throw std::runtime_error("Hnsw::save: writing " + path + " failed (disk full?)");
}

std::unique_ptr<Hnsw> Hnsw::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("Hnsw::load: cannot open " + path);
  return load(in, path);
}

std::unique_ptr<Hnsw> Hnsw::load(std::istream& stream, const std::string& path) {
  // Every section is sized from the header, so the bytes the file holds are
  // needed first; a stream that cannot seek (a pipe) is read into memory.
  std::istringstream copy;
  std::istream* input = &stream;
  long long left = bytes_left(stream);
  if (left < 0) {
    std::ostringstream all;
    all << stream.rdbuf();
    copy.str(all.str());
    left = static_cast<long long>(copy.str().size());
    input = &copy;
  }
  std::istream& in = *input;
  char magic[8];
  read_raw(in, magic, 8, path, "magic number");
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
    throw std::runtime_error("Hnsw::load: " + path + " is not an HNSW index written by Hnsw::save "
                             "(bad magic number)");
  uint32_t version = 0;
  read_raw(in, &version, 1, path, "version");
  if (version != kVersion)
    throw std::runtime_error("Hnsw::load: " + path + " has format version " +
                             std::to_string(version) + ", this build reads version " +
                             std::to_string(kVersion) + "; rebuild the index and save it again");
  int32_t header[5];
  read_raw(in, header, 5, path, "header");
  const int n = header[0], d = header[1];
  HnswParams params;
  params.M = header[2];
  params.ef_construction = header[3];
  params.ef = header[4];
  read_raw(in, &params.seed, 1, path, "header");
  if (n < 1 || d < 1)
    throw std::runtime_error("Hnsw::load: " + path + " declares " + std::to_string(n) + " points of " +
                             "dimension " + std::to_string(d) + "; expected both >= 1");
  std::unique_ptr<Hnsw> index;
  try {
    index = std::make_unique<Hnsw>(params);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("Hnsw::load: " + path + " holds bad parameters: " + e.what());
  }
  Hnsw& h = *index;
  int32_t top[2];
  read_raw(in, top, 2, path, "header");
  h.stride0_ = 1 + 2 * static_cast<size_t>(h.params_.M);
  h.stride_upper_ = 1 + static_cast<size_t>(h.params_.M);
  constexpr long long kHeaderBytes = 8 + 4 + 5 * 4 + 8 + 2 * 4;
  // A level byte, d floats and a layer-0 link block per point (d and M are
  // below 2^31, so this fits in 64 bits).
  const unsigned long long per_point = 1 + 4 * (static_cast<unsigned long long>(d) + h.stride0_);
  check_fits(static_cast<unsigned long long>(n), per_point, left - kHeaderBytes - 8, path);
  h.levels_.resize(static_cast<size_t>(n));
  read_raw(in, h.levels_.data(), h.levels_.size(), path, "levels");
  h.points_.resize(n, d);
  read_raw(in, h.points_.data(), static_cast<size_t>(h.points_.size()), path, "vectors");
  h.links0_.resize(static_cast<size_t>(n) * h.stride0_);
  read_raw(in, h.links0_.data(), h.links0_.size(), path, "layer-0 links");
  h.upper_offset_.resize(static_cast<size_t>(n));
  size_t total = 0;
  for (int i = 0; i < n; ++i) {
    h.upper_offset_[i] = total;
    total += h.levels_[i] * h.stride_upper_;
  }
  uint64_t upper_size = 0;
  read_raw(in, &upper_size, 1, path, "upper-layer size");
  if (upper_size != total)
    throw std::runtime_error("Hnsw::load: " + path + " has " + std::to_string(upper_size) +
                             " upper-layer entries but its levels need " + std::to_string(total) +
                             "; the file is corrupt, rewrite it with Hnsw::save");
  check_fits(1, 4 * total, left - kHeaderBytes - static_cast<long long>(n * per_point) - 8, path);
  h.upper_.resize(total);
  read_raw(in, h.upper_.data(), total, path, "upper-layer links");
  if (in.peek() != std::istream::traits_type::eof())
    throw std::runtime_error("Hnsw::load: " + path + " has bytes after the last section; "
                             "the file is corrupt, rewrite it with Hnsw::save");
  if (!h.points_.allFinite())
    throw std::runtime_error("Hnsw::load: " + path + " holds NaN or infinite vector entries; "
                             "the file is corrupt, rewrite it with Hnsw::save");
  h.entry_ = top[0];
  h.max_level_ = top[1];
  h.locks_.reset(new SpinLock[static_cast<size_t>(n)]);
  try {
    h.check_integrity();
  } catch (const std::logic_error& e) {
    throw std::runtime_error("Hnsw::load: " + path + " holds a damaged graph: " + e.what());
  }
  return index;
}

size_t Hnsw::check_integrity() const {
  const int n = size();
  std::ostringstream problems;
  int found = 0;
  auto report = [&](const std::string& what) {
    if (found++ < 10) problems << "\n  " << what;
  };
  if (n == 0) return 0;
  if (entry_ < 0 || entry_ >= n) {
    report("entry point " + std::to_string(entry_) + " is not a node");
  } else if (levels_[entry_] != max_level_) {
    report("entry point " + std::to_string(entry_) + " has level " +
           std::to_string(levels_[entry_]) + ", the index's top level is " + std::to_string(max_level_));
  }
  size_t total = 0;
  std::vector<int> sorted;
  for (int i = 0; i < n && found < 10; ++i) {
    if (levels_[i] > max_level_) {
      report("node " + std::to_string(i) + " has level " + std::to_string(levels_[i]) +
             " above the top level " + std::to_string(max_level_));
      continue;
    }
    for (int layer = 0; layer <= levels_[i]; ++layer) {
      const int* b = block(i, layer);
      const std::string where = "node " + std::to_string(i) + " layer " + std::to_string(layer);
      if (b[0] < 0 || b[0] > max_links(layer)) {
        report(where + " has " + std::to_string(b[0]) + " links; the bound is " +
               std::to_string(max_links(layer)));
        continue;
      }
      total += static_cast<size_t>(b[0]);
      sorted.assign(b + 1, b + 1 + b[0]);
      for (int j : sorted) {
        if (j < 0 || j >= n)
          report(where + " links to " + std::to_string(j) + ", not a node");
        else if (j == i)
          report(where + " links to itself");
        else if (levels_[j] < layer)
          report(where + " links to node " + std::to_string(j) + " of level " +
                 std::to_string(levels_[j]));
      }
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        report(where + " lists a neighbour twice");
    }
  }
  if (found > 0)
    throw std::logic_error("Hnsw::check_integrity: " + std::to_string(found) + " problem(s):" +
                           problems.str());
  return total;
}

}  // namespace ann
