// `muster agent`: the per-node half of muster (docs/agent-protocol.md). Started by the head through a
// transport, it speaks frames on stdin/stdout, starts and supervises the workers of its node, forwards
// their output, and makes sure no worker outlives it or the head:
//   - stdin EOF, head silent past the heartbeat timeout, or SIGTERM/SIGINT/SIGHUP to the agent
//     -> every worker's process group gets SIGTERM, then SIGKILL after the grace, and the agent exits;
//   - the agent itself killed -> workers die through PR_SET_PDEATHSIG.
// One event loop (the Poller's wait is the only place the agent blocks).
#pragma once

#include <string>

namespace muster::agent {

struct AgentOptions {
  std::string nonce;                // echoed in the preamble line
  int heartbeat_ms = 1000;          // how often the agent sends Heartbeat
  int heartbeat_timeout_ms = 5000;  // head silent this long -> head lost
  int lost_head_grace_ms = 1000;    // SIGTERM -> SIGKILL delay when the head is gone
  std::string node_name;            // a virtual node's name (--node-name): its Hello's host name; empty: the host's
  bool in_container = false;        // started inside the job's container (--in-container): messages say so
};

// Runs the agent until the head says Shutdown (returns 0) or is lost (returns 1).
int run_agent(const AgentOptions& options);

}  // namespace muster::agent
