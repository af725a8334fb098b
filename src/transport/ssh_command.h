// Pure construction of the ssh command line and of the remote bootstrap command (no I/O; unit-tested).
// The remote command is one string, because ssh joins its arguments with spaces and hands them to the
// node's login shell; every word in it is shell-quoted. User arguments never go through it: they travel
// inside SpawnWorker frames.
#pragma once

#include <string>
#include <vector>

#include "transport/transport.h"

namespace muster::transport {

// The POSIX sh script that finds or receives the muster binary in ~/.cache/muster/<build-id>/ and execs
// `muster agent <args>` (docs/agent-protocol.md section 1). Positional: $1 build id, $2 size, $3 SHA-256, rest
// agent args.
const std::string& bootstrap_script();

// `sh -c '<bootstrap script>' muster-bootstrap <build-id> <size> <sha256> <agent args...>`, quoted for a login
// shell.
std::string remote_agent_command(const SelfBinary& binary, const std::vector<std::string>& agent_args);

// The ControlPath of muster's master for `destination` with these options: the control directory and a hash of
// the destination, the config file and the user's -o options (not ssh's %C, which needs ssh's own reading of the
// config), so muster can find its masters without asking ssh (ssh_master.h). Empty without multiplexing.
std::string control_path(const SshOptions& options, const std::string& destination);

// The full argv: ssh, its options, the destination, the remote command.
std::vector<std::string> ssh_argv(const SshOptions& options, const std::string& destination,
                                  const std::string& remote_command);

}  // namespace muster::transport
