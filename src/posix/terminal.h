// Terminal facts the CLI needs: whether an fd is a terminal, and restoring an fd's blocking mode at exit
// (the launcher writes to the terminal without blocking; a shell sharing the tty must get it back as it was).
#pragma once

#include <string_view>

namespace muster::posix {

bool is_terminal(int fd);

// Best effort write of a diagnostic to stderr: never throws, never raises SIGPIPE, ignores errors (the reader
// may be gone, as the agent's is when the head dies).
void write_stderr(std::string_view text);

// Sets O_NONBLOCK on `fd` for its lifetime and restores the original file status flags on destruction.
class NonBlockingScope {
 public:
  explicit NonBlockingScope(int fd);
  ~NonBlockingScope();
  NonBlockingScope(const NonBlockingScope&) = delete;
  NonBlockingScope& operator=(const NonBlockingScope&) = delete;

 private:
  int fd_;
  int original_flags_;
};

}  // namespace muster::posix
