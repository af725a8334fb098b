// `muster exec`'s head side against the head's pool of agents (head/agent_pool.h): the one file of exec that
// talks to the pool. It starts an agent on every node (transport, launch tree, bootstrap as for launch), sends
// each one SpawnWorker with the command, passes the Output frames on as they arrive and collects every node's
// ending. No ranks, no rendezvous, no gang: every node runs to its own end.
//
// - A node whose agent cannot be started is `unreachable` and the others run without it (the pool's connect()
//   fails on the first such node; that node is left out and the others are connected again, over the ssh masters
//   already open: each unreachable node costs one more connect round, up to --connect-timeout if it is silent).
// - --timeout: a node still running its command that long after it was sent is stopped (SIGTERM, SIGKILL after
//   the grace) and is `timed_out`.
// - SIGINT/SIGTERM/SIGHUP on the head (the caller holds the posix::SignalBlock): every node's command is stopped
//   the same way (a second one: SIGKILL at once), and the pool is shut down, which ends every agent; nothing is
//   left on the nodes (the agents' teardown and guards: docs/design/launch.md, step 6).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "exec/live_lines.h"
#include "exec/outcome.h"
#include "head/agent_pool.h"
#include "util/result.h"

namespace muster::exec {

struct NodeExecRequest {
  std::vector<head::PoolNode> nodes;
  head::PoolOptions pool;
  std::vector<std::string> argv;  // the same on every node
  std::vector<std::string> env;   // K=V on top of the node's environment (MUSTER_NODE=<name> is added per node)
  std::string cwd;                // empty: the agent's (the node user's home)
  int timeout_ms = 0;             // 0: no limit
  int grace_ms = 1000;            // SIGTERM -> SIGKILL when stopping a command
  bool keep_output = true;        // false: outcomes carry no out/err (live output only)
};

// What the head shows while the command runs. Called from the loop: must not block for long.
class ExecWatcher {
 public:
  virtual ~ExecWatcher() = default;
  virtual void on_output(size_t node, OutStream stream, std::string_view bytes) = 0;
  virtual void on_ended(size_t node) = 0;              // the node's outcome is final
  virtual void on_note(const std::string& text) = 0;  // muster's own notes (how the pool connected, agent errors)
};

struct ExecResult {
  std::vector<NodeOutcome> outcomes;  // in request order
  bool interrupted = false;           // a signal stopped the command
};

// Fails only for the head's own reasons (the transport could not be set up, an interrupt while connecting).
Result<ExecResult> exec_on_nodes(const NodeExecRequest& request, ExecWatcher& watcher);

}  // namespace muster::exec
