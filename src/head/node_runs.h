// Runs one command on every node of a pool and collects each one's exit status and output: the primitive
// behind `muster setup` (and anything else that is "do X on every node, then look at the results"). Unlike a
// launch there is no gang: every node's command runs to its end, and a node's failure is just its result.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "head/agent_pool.h"
#include "protocol/messages.h"

namespace muster::head {

struct NodeRun {
  bool ran = false;  // false: the node was lost or the command could not start (see `error`)
  int exit_code = -1;  // the command's exit code, or 128+signal
  std::string out;
  std::string err;
  std::string error;  // why it did not run or finish

  bool ok() const { return ran && exit_code == 0; }
};

// The argv and extra environment of node `index`'s command (cwd is the agent's: the node user's home).
struct NodeCommand {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // K=V on top of the node's own environment
};

// Runs `command(i)` on every live node i of `pool` and waits (bounded by `timeout_ms`) until all have ended.
// Fails only for the head's own reasons (an interrupt, the poller); node failures are in the results.
Result<std::vector<NodeRun>> run_on_nodes(AgentPool& pool, const std::function<NodeCommand(size_t)>& command,
                                          int timeout_ms);

// The path of the muster binary on every node, for commands that run muster itself there (`muster node ...`):
// the agent's own executable, which the worker inherits as /proc/self/exe at fork time.
inline constexpr const char* kNodeMuster = "/proc/self/exe";

}  // namespace muster::head
