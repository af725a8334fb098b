#include "agent/guard.h"

#include <csignal>
#include <set>
#include <string>

#include "posix/pipe.h"
#include "posix/process_groups.h"

namespace muster::agent {

int run_guard() {
  std::set<int> groups;
  std::string pending;
  char buffer[4096];
  while (true) {
    auto got = posix::read_some(0, buffer);
    if (!got || got->eof) break;
    if (got->would_block) continue;  // stdin is a blocking pipe; not expected
    pending.append(buffer, got->bytes);
    for (size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
      int pgid = std::atoi(pending.substr(0, end).c_str());
      if (pgid > 1) groups.insert(pgid);
    }
  }
  // Only groups still in our session: one whose workers all ended long ago may have had its id reused by someone
  // else's group (posix/process_groups.h).
  for (int pgid : posix::groups_still_in_session(groups, posix::current_session_id())) {
    (void)posix::signal_group(pgid, SIGKILL);
  }
  return 0;
}

Result<Guard> start_guard() {
  auto pipe = posix::make_pipe();
  if (!pipe) return pipe.error();
  // A fork of the agent, not muster exec'ed again: the agent has one thread, and the guard needs nothing but its
  // pipe (also under a container's explicit loader, which an exec would have to name).
  auto process = posix::fork_call(pipe->read.get(), "muster-guard", &run_guard);
  if (!process) return process.error();
  return Guard{std::move(*process), std::move(pipe->write)};
}

}  // namespace muster::agent
