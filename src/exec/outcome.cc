#include "exec/outcome.h"

#include <algorithm>

#include <fmt/core.h>

#include "posix/exit_status.h"

namespace muster::exec {

const char* ending_name(Ending ending) {
  switch (ending) {
    case Ending::running: return "running";
    case Ending::exited: return "exited";
    case Ending::signaled: return "signaled";
    case Ending::timed_out: return "timed_out";
    case Ending::interrupted: return "interrupted";
    case Ending::failed_to_start: return "failed_to_start";
    case Ending::unreachable: return "unreachable";
    case Ending::lost: return "lost";
  }
  return "unknown";
}

int exit_status(const NodeOutcome& outcome) {
  switch (outcome.ending) {
    case Ending::exited: return outcome.code;
    case Ending::signaled: return 128 + outcome.code;
    case Ending::timed_out: return kTimedOutStatus;
    case Ending::interrupted: return kInterruptedStatus;
    case Ending::failed_to_start: return kNotStartedStatus;
    case Ending::running:
    case Ending::unreachable:
    case Ending::lost: return kUnreachableStatus;
  }
  return kUnreachableStatus;
}

int worst_exit_status(const std::vector<NodeOutcome>& outcomes) {
  int worst = 0;
  for (const auto& outcome : outcomes) worst = std::max(worst, exit_status(outcome));
  return worst;
}

std::string describe_failure(const NodeOutcome& outcome, double timeout_s) {
  switch (outcome.ending) {
    case Ending::exited:
      return outcome.code == 0 ? "" : fmt::format("exit code {}", outcome.code);
    case Ending::signaled: return fmt::format("killed by {}", posix::signal_name(outcome.code));
    case Ending::timed_out: return fmt::format("timed out after {:g} s (stopped)", timeout_s);
    case Ending::interrupted: return "stopped by muster (interrupted)";
    case Ending::failed_to_start: return "could not start the command: " + outcome.reason;
    case Ending::unreachable: return "not reached: " + outcome.reason;
    case Ending::lost: return "lost while the command ran: " + outcome.reason;
    case Ending::running: return "no result";
  }
  return "";
}

}  // namespace muster::exec
