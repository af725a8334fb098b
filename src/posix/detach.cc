#include "posix/detach.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace muster::posix {
namespace {

// Closes every descriptor >= 3 that is not in `keep` (sorted).
void close_all_but(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned first = 3;
  for (int fd : keep) {
    if (fd < 3) continue;
    if (static_cast<unsigned>(fd) > first) ::close_range(first, static_cast<unsigned>(fd) - 1, 0);
    first = static_cast<unsigned>(fd) + 1;
  }
  ::close_range(first, ~0U, 0);
}

bool become_detached(int output_fd, const std::vector<int>& keep) {
  if (::setsid() < 0) return false;
  // A write to a reader that went away (the parent, a closed attach) must fail with EPIPE, not kill the job's
  // head, also outside the SignalBlock of the launch (which keeps this disposition and restores it).
  ::signal(SIGPIPE, SIG_IGN);
  int dev_null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (dev_null < 0) return false;
  bool ok = ::dup2(dev_null, 0) == 0 && ::dup2(output_fd, 1) == 1 && ::dup2(output_fd, 2) == 2;
  close_all_but(keep);
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
