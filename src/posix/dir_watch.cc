#include "posix/dir_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace muster::posix {

Result<DirWatch> DirWatch::open(const std::string& dir) {
  Fd fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!fd.valid()) return make_error(ErrorKind::io, "inotify: {}", std::strerror(errno));
  if (::inotify_add_watch(fd.get(), dir.c_str(), IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
    return make_error(ErrorKind::io, "cannot watch {}: {}", dir, std::strerror(errno));
  }
  return DirWatch(std::move(fd));
}

void DirWatch::drain() {
  alignas(inotify_event) char buffer[4096];
  while (::read(fd_.get(), buffer, sizeof(buffer)) > 0) {
  }
}

}  // namespace muster::posix
