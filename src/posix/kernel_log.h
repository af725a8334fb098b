// The kernel's log (/dev/kmsg), read without waiting: how the agent learns that the kernel's out-of-memory
// killer ended a worker. Needs the right to read it (root, or kernel.dmesg_restrict = 0); otherwise the answer
// says it could not look.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace muster::posix {

struct KernelLogLine {
  int64_t monotonic_ms = 0;  // when the kernel logged it, on the clock of clock.h's monotonic_ms()
  std::string text;          // the message, without the record header
};

// The messages currently in the kernel's log buffer that contain `needle` and were logged at or after
// `since_monotonic_ms`, oldest first, at most the last `max_lines`. An error when the log cannot be read.
Result<std::vector<KernelLogLine>> kernel_log_lines(const std::string& needle, int64_t since_monotonic_ms,
                                                    size_t max_lines = 16);

}  // namespace muster::posix
