// Internal to src/posix (dir.cc, file.cc): a struct stat as the FileStat of dir.h, their errors, and the times argument of utimensat/futimens
// that sets only the modification time.
#pragma once

#include <sys/stat.h>

#include "posix/dir.h"

namespace muster::posix {

FileStat file_stat_of(const struct stat& st);

// The Error of a failed call for dir.h and file.h: ErrorKind::io, the system's text, errno in `sys`.
Error sys_error(int code);

// `fd` (just opened O_NONBLOCK from a path) kept when it is a regular file; otherwise closed, and an error whose
// sys is kNotRegularFile (dir.h) saying what it is (a FIFO, a directory, a device, a socket).
Result<Fd> regular_file_only(int fd);

struct MtimeOnly {
  struct timespec times[2];  // access time UTIME_OMIT, modification time as given
  explicit MtimeOnly(int64_t mtime_ns);
};

}  // namespace muster::posix
