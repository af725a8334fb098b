// The open-file limit (RLIMIT_NOFILE), which big jobs run into: the head holds three pipes per node, an agent
// two per worker. Debian's default soft limit is 1,024 under a hard limit of 4,096 or more, so muster raises its
// own soft limit to the hard one at start (head and agent alike: main does it once, before anything else), and
// spawn() gives every child the soft limit muster found (the one the child would have had without muster), so
// workers and ssh clients see the limits they always saw.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace muster::posix {

struct OpenFileLimit {
  uint64_t soft = 0;
  uint64_t hard = 0;  // kUnlimited when the hard limit is RLIM_INFINITY
  static constexpr uint64_t kUnlimited = UINT64_MAX;
};

// This process's limit now.
OpenFileLimit open_file_limit();

// Raises the soft limit as far as the hard limit allows (and the kernel's fs.nr_open, for an unlimited hard
// limit); returns the limit in effect afterwards. Never fails: a limit that cannot be raised stays as it was.
// Remembers the soft limit it found, for spawn() to give back to children.
OpenFileLimit raise_open_file_limit();

// What a process started on this machine without muster gets (a container's, say): the soft open-file limit
// muster found at start (its own is raised) and the hard one; and RLIMIT_NPROC's soft and hard limits, where
// "unlimited" (and any value above the kernel's pid_max, which no process count can pass) is pid_max.
OpenFileLimit child_open_file_limit();
OpenFileLimit child_process_limit();

// "1024" or "unlimited".
std::string limit_text(uint64_t value);

// The soft limit on this user's processes (RLIMIT_NPROC, `ulimit -u`); OpenFileLimit::kUnlimited when none.
uint64_t process_limit();

// What a failed fork(2) of `what` says: the system's words, and for EAGAIN the process limit (RLIMIT_NPROC)
// and how to raise it, since that is what a big job usually runs into. `sys` carries errno.
Error fork_failure(const std::string& what, int code);

}  // namespace muster::posix
