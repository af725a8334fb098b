// Terminal facts the CLI needs: whether an fd is a terminal, and restoring an fd's blocking mode at exit
// (the launcher writes to the terminal without blocking; a shell sharing the tty must get it back as it was).
#pragma once

#include <optional>
#include <string_view>
#include <utility>

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

// The terminal's size as (columns, rows); nullopt when `fd` is not a terminal.
std::optional<std::pair<int, int>> terminal_size(int fd);

// Keys read one at a time, without echo, for its lifetime (`muster top`): the terminal's canonical mode and echo
// off, signals (Ctrl-C) still generated; the original settings restored on destruction. Nothing when `fd` is not
// a terminal.
class RawInput {
 public:
  explicit RawInput(int fd);
  ~RawInput();
  RawInput(const RawInput&) = delete;
  RawInput& operator=(const RawInput&) = delete;
  bool active() const { return saved_ != nullptr; }

 private:
  int fd_;
  void* saved_ = nullptr;  // struct termios, owned
};

}  // namespace muster::posix
