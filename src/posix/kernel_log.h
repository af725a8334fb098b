// The kernel's log (/dev/kmsg), read without waiting: how the agent learns that the kernel's out-of-memory
// killer ended a worker, that a GPU logged an XID (agent/gpu_watch.h), and what the doctor's --gpu check reads
// since boot. Needs the right to read it (root, or kernel.dmesg_restrict = 0); otherwise the answer says it could
// not look.
//
// /dev/kmsg hands over one record per read ("priority,sequence,usec,flags;message\n" plus continuation lines
// that start with a space). The same readers take a FIFO or a regular file in that format, or dmesg's
// ("[  123.456789] message"), or bare messages, several lines per read, which is how the tests put recorded kernel
// logs where /dev/kmsg is (a bind mount inside a testbed node).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

struct KernelLogLine {
  int64_t monotonic_ms = -1;  // when the kernel logged it, on the clock of clock.h's monotonic_ms(); -1 unknown
  std::string text;           // the message, without the record header
};

// The messages currently in the kernel's log buffer that contain `needle` and were logged at or after
// `since_monotonic_ms` (a message without a time counts), oldest first, at most the last `max_lines`. An error when
// the log cannot be read.
Result<std::vector<KernelLogLine>> kernel_log_lines(const std::string& needle, int64_t since_monotonic_ms,
                                                    size_t max_lines = 16, const std::string& path = "/dev/kmsg");

// The log from now on, for an event loop: opened non-blocking at the end of the log (a FIFO or a file: where it
// is), its descriptor polled for input (EventLoop::watch), read_new() called when it is readable. Owns the fd.
class KernelLogReader {
 public:
  static Result<KernelLogReader> open_at_end(const std::string& path = "/dev/kmsg");

  int fd() const { return fd_.get(); }
  // The whole messages that arrived since the last call, at most `max_lines` of them per call (the rest wait for
  // the next); `*ended` becomes true when the source ended (a FIFO whose writers went, the end of a file: never
  // /dev/kmsg), after which the fd must no longer be polled.
  std::vector<KernelLogLine> read_new(size_t max_lines, bool* ended);

 private:
  explicit KernelLogReader(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
  std::string partial_;  // a line not yet whole (a FIFO or file read ending mid-line)
};

}  // namespace muster::posix
