// Where the bytes of one rank log go. The head implements it with a posix Fd in production; FileSink
// (file_sink.h) is the stdio implementation for tests and simple use. write() takes every byte or fails.
#pragma once

#include <string_view>

#include "util/result.h"

namespace muster::logs {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Result<void> write(std::string_view bytes) = 0;
  // Pushes buffered bytes to the OS, e.g. before a failure report reads the file back.
  virtual Result<void> flush() { return {}; }
};

}  // namespace muster::logs
