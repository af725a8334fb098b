// The node's side of a job in containers: `muster agent --container-spec JSON <agent args>` calls
// enter_container(), which picks the runtime, the GPU flags and the agent's files on this node and then *becomes*
// the runtime's client (exec): `podman|docker run ... IMAGE <the agent>` for a new container, or `exec -i` into a
// running one (the agent's files copied into a fresh private directory first, for every start). Nothing of muster stays outside the
// container: the transport's pipes reach the agent inside (runtime_argv.h), so the agent's own supervision —
// process groups, parent-death signals, the guard, teardown on EOF — works unchanged.
#pragma once

#include <string>
#include <vector>

#include "container/spec.h"

namespace muster::container {

// The agent that runs in a running container (--container NAME) was copied into a fresh directory for this start
// (runtime_argv.h existing_agent_dir); once it runs (its program, loader and libraries are mapped) it removes that
// directory's files and the directory (`--staged-in DIR`), so that starts leave nothing in the container. Only a
// /tmp/.muster-* directory, never through a link.
void remove_staged_agent(const std::string& dir);

// `outer_args` is this agent's own command line (after `muster agent`); the agent inside gets the same arguments
// without --container-spec and with --in-container (inner_agent_args). Returns only on failure, with the exit code
// after a message on stderr (stdout is the protocol's and stays silent): 127 when no runtime is installed, 125 for
// anything else (podman's and docker's own code).
int enter_container(const ContainerSpec& spec, const std::vector<std::string>& outer_args);

// The arguments of the agent inside the container: `outer_args` without `--container-spec JSON` (or
// `--container-spec=JSON`), then `--in-container`, so the agent inside is told where it is. Pure.
std::vector<std::string> inner_agent_args(const std::vector<std::string>& outer_args);

}  // namespace muster::container
