// tests/pipe_buffer.h: a read-only stream buffer that cannot seek, like a
// pipe's, for testing loaders on streams whose size is unknown up front.
#pragma once

#include <streambuf>
#include <string>

struct PipeBuffer : std::streambuf {
  explicit PipeBuffer(std::string bytes) : bytes_(std::move(bytes)) {
    setg(&bytes_[0], &bytes_[0], &bytes_[0] + bytes_.size());
  }
  std::string bytes_;
};
