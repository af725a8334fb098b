#include "posix/detach.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace muster::posix {
namespace {

// Closes every descriptor >= 3 that this process inherited (not close-on-exec: muster opens everything
// close-on-exec, and so does the C library for its own) and that is not in `keep`.
void close_inherited(const std::vector<int>& keep) {
  std::vector<int> inherited;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (dirent* entry = ::readdir(dir)) {
    int fd = std::atoi(entry->d_name);
    if (fd < 3 || fd == ::dirfd(dir) || std::find(keep.begin(), keep.end(), fd) != keep.end()) continue;
    int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) == 0) inherited.push_back(fd);
  }
  ::closedir(dir);
  for (int fd : inherited) ::close(fd);
}

bool become_detached(int output_fd, const std::vector<int>& keep) {
  if (::setsid() < 0) return false;
  // A write to a reader that went away (the parent, a closed attach) must fail with EPIPE, not kill the job's
  // head, also outside the SignalBlock of the launch (which keeps this disposition and restores it).
  ::signal(SIGPIPE, SIG_IGN);
  int dev_null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (dev_null < 0) return false;
  bool ok = ::dup2(dev_null, 0) == 0 && ::dup2(output_fd, 1) == 1 && ::dup2(output_fd, 2) == 2;
  close_inherited(keep);
  return ok;
}

}  // namespace

Result<std::optional<Process>> fork_detached(int output_fd, const std::vector<int>& keep) {
  pid_t pid = ::fork();
  if (pid < 0) return make_error(ErrorKind::io, "cannot start the job in the background: fork: {}", std::strerror(errno));
  if (pid == 0) {
    if (!become_detached(output_fd, keep)) ::_exit(125);
    return std::optional<Process>{};
  }
  return std::optional<Process>(Process(pid, 0));
}

}  // namespace muster::posix
