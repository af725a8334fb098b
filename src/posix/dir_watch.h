// DirWatch: wakes a loop when files in one directory are written or created (inotify), so a follower (`muster logs
// -f`) prints a line as soon as it reaches the file instead of at its next poll. Passive: the owner adds fd() to
// its Poller and calls drain() when it is readable. Only a hint: some filesystems (NFS) deliver no events for
// writes made elsewhere, so the owner still polls, less often.
#pragma once

#include <string>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

class DirWatch {
 public:
  static Result<DirWatch> open(const std::string& dir);
  int fd() const { return fd_.get(); }
  // Reads the pending events (what changed does not matter: the owner reads its files again).
  void drain();

 private:
  explicit DirWatch(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
};

}  // namespace muster::posix
