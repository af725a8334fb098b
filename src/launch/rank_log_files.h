// The head's rank log files and run directory on disk, private by default: the run directory is created 0700
// and every rank-N.log 0600 (a user who wants to share them chmods them, or makes the directory beforehand:
// an existing directory and existing files keep their modes). Files are opened O_NOFOLLOW, so a symbolic link
// planted in a shared run directory cannot redirect a log. Each sink buffers up to 64 KiB and writes it out
// when full, on flush() (the launcher's once-a-second timer) and when closed.
#pragma once

#include <string>

#include "logs/rank_log.h"
#include "util/result.h"

namespace muster::launch {

inline constexpr uint32_t kRunDirMode = 0700;
inline constexpr uint32_t kRunFileMode = 0600;

// Creates the run directory (0700, parents with the default mode) unless it exists.
Result<void> make_run_dir(const std::string& dir);

// The SinkOpener for logs::RankLogSet that makes private posix-backed sinks.
logs::RankLogSet::SinkOpener private_log_opener();

}  // namespace muster::launch
