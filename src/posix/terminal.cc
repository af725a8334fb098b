#include "posix/terminal.h"

#include <fcntl.h>
#include <unistd.h>

namespace muster::posix {

bool is_terminal(int fd) { return ::isatty(fd) == 1; }

NonBlockingScope::NonBlockingScope(int fd) : fd_(fd), original_flags_(::fcntl(fd, F_GETFL)) {
  if (original_flags_ >= 0) ::fcntl(fd_, F_SETFL, original_flags_ | O_NONBLOCK);
}

NonBlockingScope::~NonBlockingScope() {
  if (original_flags_ >= 0) ::fcntl(fd_, F_SETFL, original_flags_);
}

}  // namespace muster::posix
