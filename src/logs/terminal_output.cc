#include "logs/terminal_output.h"

#include "posix/fd.h"

namespace muster::logs {

bool write_pending(TerminalView& view, int fd) {
  while (!view.pending().empty()) {
    auto written = posix::write_some(fd, view.pending());
    if (!written || written->would_block) break;
    view.consumed(written->bytes);
  }
  return !view.pending().empty();
}

}  // namespace muster::logs
