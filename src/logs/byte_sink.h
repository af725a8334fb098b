// Where the bytes of one rank log go. The head implements it with a posix Fd in production
// (launch/rank_log_files.h); FileSink (file_sink.h) is the stdio implementation for tests and simple use.
// write() takes every byte or fails; destroying a sink writes out what it buffered (flush() first to see errors).
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
