// ntp/model/binary_io.h: the little binary writer and bounds-checked reader that
// model files and checkpoints are made of (native byte order, 32-bit counts).
// Internal to the library.
#pragma once

#include "autodiff/tape.h"
#include "ntp/kb/kb.h"
#include "ntp/kb/limits.h"

#include <cstdint>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ntp {

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}
  void bytes(const void* p, std::size_t n) { out_.write(static_cast<const char*>(p), static_cast<std::streamsize>(n)); }
  void i32(std::int32_t v) { bytes(&v, sizeof v); }
  void f64(double v) { bytes(&v, sizeof v); }
  void str(const std::string& s) { i32(static_cast<std::int32_t>(s.size())); bytes(s.data(), s.size()); }
  void ints(const std::vector<int>& v) { i32(static_cast<std::int32_t>(v.size())); bytes(v.data(), v.size() * sizeof(int)); }
  void matrix(const ad::Matrix& m) {
    i32(static_cast<std::int32_t>(m.rows()));
    i32(static_cast<std::int32_t>(m.cols()));
    bytes(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double));
  }
  void atom(const RuleAtom& a) {
    i32(a.predicate.is_slot); i32(a.predicate.id);
    i32(static_cast<std::int32_t>(a.args.size()));
    for (const Term& t : a.args) { i32(t.is_variable); i32(t.id); }
  }
 private:
  std::ostream& out_;
};

class Reader {
 public:
  // The size of the input is taken up front, so that a damaged count is
  // refused before it allocates more than the file could hold. A stream that
  // cannot seek (a pipe) is read into memory first to learn its size.
  // `kind` names the file in messages ("model file", "checkpoint").
  Reader(std::istream& in, const std::string& path, const std::string& kind = "model file")
      : in_(&in), path_(path), kind_(kind) {
    const std::streampos start = in.tellg();
    if (start != std::streampos(-1) && in.seekg(0, std::ios::end)) {
      left_ = static_cast<long long>(in.tellg() - start);
      in.seekg(start);
    } else {
      in.clear();
      std::ostringstream all;
      all << in.rdbuf();
      buffer_.str(all.str());
      left_ = static_cast<long long>(buffer_.str().size());
      in_ = &buffer_;
    }
  }
  void bytes(void* p, std::size_t n) {
    in_->read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    if (!*in_) fail("truncated " + kind_);
    left_ -= static_cast<long long>(n);
  }
  std::int32_t i32() { std::int32_t v; bytes(&v, sizeof v); return v; }
  double f64() { double v; bytes(&v, sizeof v); return v; }
  // A count of items of at least `item_bytes` each, which must fit in what is left of the file.
  std::int32_t count(std::int32_t limit = 1 << 28, long long item_bytes = 1) {
    std::int32_t n = i32();
    if (n < 0 || n > limit) fail("corrupt " + kind_ + " (bad count " + std::to_string(n) + ")");
    if (static_cast<long long>(n) * item_bytes > left_) fail("truncated " + kind_ + " (count " + std::to_string(n) + ")");
    return n;
  }
  std::string str() { std::string s(static_cast<std::size_t>(count()), '\0'); bytes(s.data(), s.size()); return s; }
  std::vector<int> ints() {
    std::vector<int> v(static_cast<std::size_t>(count(kMaxArity, sizeof(int))));
    bytes(v.data(), v.size() * sizeof(int));
    return v;
  }
  ad::Matrix matrix() {
    std::int32_t r = count(kMaxTableRows), c = count(kMaxDim);
    if (static_cast<long long>(r) * c * static_cast<long long>(sizeof(double)) > left_)
      fail("truncated " + kind_ + " (table of " + std::to_string(r) + " x " + std::to_string(c) + ")");
    ad::Matrix m(r, c);
    bytes(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double));
    return m;
  }
  RuleAtom atom() {
    RuleAtom a;
    a.predicate.is_slot = i32() != 0; a.predicate.id = i32();
    a.args.resize(static_cast<std::size_t>(count(kMaxArity)));
    for (Term& t : a.args) { t.is_variable = i32() != 0; t.id = i32(); }
    return a;
  }
  [[noreturn]] void fail(const std::string& what) { throw std::runtime_error(path_ + ": " + what); }
 private:
  std::istream* in_;
  std::istringstream buffer_;  // the input of an unseekable stream
  std::string path_;
  std::string kind_;
  long long left_ = 0;  // bytes not yet read
};

}  // namespace ntp
