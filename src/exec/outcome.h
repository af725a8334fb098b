// What a command came to on one node of `muster exec`: everything it wrote, how it ended, and the exit status
// that ending stands for. Plain data and pure functions, shared by the head side (node_exec.h fills it) and the
// summaries (gather.h).
#pragma once

#include <string>
#include <vector>

namespace muster::exec {

enum class Ending {
  running,          // not ended (yet): only while the command runs
  exited,           // `code` is its exit code
  signaled,         // `code` is the signal that ended it
  timed_out,        // ran past --timeout and was stopped (`code`: the signal, 0 if unknown)
  interrupted,      // stopped by Ctrl-C (or SIGTERM/SIGHUP) on the head
  failed_to_start,  // the node could not start it (`reason`)
  unreachable,      // no agent could be started on the node (`reason`)
  lost,             // the node's agent went away while the command ran (`reason`)
};

// "exited", "signaled", "timed_out", ... (--json).
const char* ending_name(Ending ending);

struct NodeOutcome {
  std::string node;  // as the user wrote it
  std::string out;   // every byte of stdout
  std::string err;   // every byte of stderr
  Ending ending = Ending::running;
  int code = 0;
  std::string reason;  // why it did not run or finish (failed_to_start, unreachable, lost)

  bool ran() const { return ending == Ending::exited || ending == Ending::signaled || ending == Ending::timed_out; }
};

// Exit statuses of endings that have no code of their own (the conventions of timeout(1) and ssh/pdsh).
inline constexpr int kTimedOutStatus = 124;
inline constexpr int kNotStartedStatus = 127;
inline constexpr int kInterruptedStatus = 130;
inline constexpr int kUnreachableStatus = 255;

// The shell's view of one ending: the exit code, 128+signal, or the statuses above.
int exit_status(const NodeOutcome& outcome);

// The worst (highest) exit status over all nodes, as pdsh -S and clush return; 0 for none.
int worst_exit_status(const std::vector<NodeOutcome>& outcomes);

// What went wrong on the node, for the list at the end: "exit code 1", "killed by SIGKILL", "timed out after 5 s
// (stopped)", "not reached: <reason>", ...; empty when the command exited 0.
std::string describe_failure(const NodeOutcome& outcome, double timeout_s);

}  // namespace muster::exec
