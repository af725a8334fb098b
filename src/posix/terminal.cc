#include "posix/terminal.h"

#include <fcntl.h>
#include <unistd.h>

namespace muster::posix {

bool is_terminal(int fd) { return ::isatty(fd) == 1; }

void write_stderr(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(2, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

NonBlockingScope::NonBlockingScope(int fd) : fd_(fd), original_flags_(::fcntl(fd, F_GETFL)) {
  if (original_flags_ >= 0) ::fcntl(fd_, F_SETFL, original_flags_ | O_NONBLOCK);
}

NonBlockingScope::~NonBlockingScope() {
  if (original_flags_ >= 0) ::fcntl(fd_, F_SETFL, original_flags_);
}

}  // namespace muster::posix
