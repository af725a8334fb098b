// A TerminalView's bytes written to a non-blocking output (the user's terminal, a pipe) from an event loop: the
// head's launcher and an attaching client (jobs/attach_client.h) each own one loop and one view, and write it out
// the same way. The view itself never touches an fd (terminal_view.h); this is the one place in logs that does.
#pragma once

#include "logs/terminal_view.h"

namespace muster::logs {

// Writes the view's pending bytes to `fd` as long as it takes them (consumed() may queue more: the dropped-lines
// notice, the status line), stopping when nothing is pending, the fd is full, or a write fails. Returns whether
// bytes remain: the caller's loop then watches `fd` for writability and calls again when it is.
bool write_pending(TerminalView& view, int fd);

}  // namespace muster::logs
