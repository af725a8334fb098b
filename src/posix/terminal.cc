#include "posix/terminal.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
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

std::optional<std::pair<int, int>> terminal_size(int fd) {
  struct winsize size {};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return std::nullopt;
  return std::make_pair(static_cast<int>(size.ws_col), static_cast<int>(size.ws_row));
}

RawInput::RawInput(int fd) : fd_(fd) {
  auto* saved = new struct termios;
  if (::tcgetattr(fd, saved) != 0) {
    delete saved;
    return;
  }
  struct termios raw = *saved;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  if (::tcsetattr(fd, TCSANOW, &raw) != 0) {
    delete saved;
    return;
  }
  saved_ = saved;
}

RawInput::~RawInput() {
  if (!saved_) return;
  auto* saved = static_cast<struct termios*>(saved_);
  ::tcsetattr(fd_, TCSANOW, saved);
  delete saved;
}

}  // namespace muster::posix
