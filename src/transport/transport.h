// A Transport turns (node, agent arguments) into a running `muster agent` with a duplex byte stream:
// `local` spawns it on this machine, `ssh` runs it through the system OpenSSH client (so ~/.ssh/config,
// keys, agents and ProxyJump all work), `slurm` through srun. The transport only starts the process;
// everything after (preamble, upload, frames) is connection::AgentSession's.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "posix/fd.h"
#include "posix/process.h"
#include "util/result.h"

namespace muster::transport {

// The binary the head runs as: pushed to nodes that lack it (docs/agent-protocol.md section 1).
struct SelfBinary {
  std::string path;      // /proc/self/exe resolved
  std::string build_id;  // XXH3-64 of the file, 16 hex digits: the cache directory's name
  uint64_t size = 0;
  std::string sha256;    // 64 hex digits: what a node checks a cached or uploaded copy against
};
Result<SelfBinary> self_binary();
Result<std::string> read_self_binary(const SelfBinary& binary);

struct AgentProcess {
  posix::Process process;  // the agent (local) or the ssh/srun client carrying it; none for a master session
  posix::Fd to_agent;      // the agent's stdin
  posix::Fd from_agent;    // the agent's stdout
  posix::Fd agent_stderr;  // the agent's (and the ssh client's) stderr
  // A session opened directly on an ssh ControlMaster (ssh_master.h): its control connection. The session lasts
  // as long as it is open; closing it ends the session (the agent sees EOF).
  posix::Fd master_control;
};

// Ends what carries the agent: `signal` to the client's process group, or a master session's control connection
// closed (any signal: the session ends).
void end_transport(AgentProcess& process, int signal);
// Whether nothing of the transport is left on this machine: the client reaped (never blocks), or a master
// session's control connection closed.
bool transport_ended(AgentProcess& process);
// A master session that failed before the agent answered: the master's reason ("the ssh master refused the
// session: ..."), waiting up to `wait_ms` for it; then the session is ended. "" for a client process.
std::string end_failed_master_session(AgentProcess& process, int wait_ms);

struct AgentTarget {
  std::string node;         // the node's name as the user wrote it (shown in messages)
  std::string destination;  // what to connect to: "user@host" or "host"
  std::vector<std::string> agent_args;  // after `muster agent`
};

enum class TransportKind { local, ssh, slurm };

// What SupervisedSession adds to the diagnostics it gives restart() for a start that stayed silent.
inline constexpr std::string_view kNoAnswer = "(no answer within half the connect limit)";

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  virtual Result<AgentProcess> start(const AgentTarget& target) = 0;
  // A start whose process ended before the agent answered, given what it wrote on stderr: a second start that
  // may work, or nullopt. ssh: the node's sshd accepted none of the key exchanges muster asked for (ssh_kex.h),
  // so it is started again with ssh's own choice.
  // Also called, with kNoAnswer in `diagnostics`, for a start that is still running but from which nothing came
  // for half the connect limit; the second try gets the other half (ssh: a master connection left hanging by a
  // network partition takes new sessions and never opens them: the node is tried once more on a connection of
  // its own).
  virtual std::optional<Result<AgentProcess>> restart(const AgentTarget& target, std::string_view diagnostics) {
    (void)target;
    (void)diagnostics;
    return std::nullopt;
  }
};

// OpenSSH's default ciphers (all there since 6.5), AES-GCM first.
inline constexpr const char* kPreferredCiphers =
    "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr";

struct SshOptions {
  int connect_timeout_s = 10;
  int server_alive_interval_s = 5;
  bool multiplex = true;      // ControlMaster=auto, ControlPersist
  int control_persist_s = 60;
  std::string control_dir;    // empty: ~/.cache/muster/ssh; must be private (posix/private_dir.h), else start() fails
  std::vector<std::string> extra_options;  // -o values from the user
  std::string config_file;    // ssh -F FILE; empty: the user's ~/.ssh/config
  bool prefer_aes_gcm = true;  // -o Ciphers=kPreferredCiphers (a user's --ssh-option Ciphers=... wins)
  std::string kex = "fast";    // -o KexAlgorithms: "fast", "default" (none) or a list (ssh_kex.h); the user's -o wins
};

std::unique_ptr<Transport> make_local_transport(SelfBinary binary);
std::unique_ptr<Transport> make_ssh_transport(SelfBinary binary, SshOptions options);
// Inside a Slurm allocation (SLURM_JOB_ID set): one srun step per node (srun_command.h).
std::unique_ptr<Transport> make_slurm_transport(SelfBinary binary);
// One of the three; `ssh` options apply to ssh only.
std::unique_ptr<Transport> make_transport(TransportKind kind, SelfBinary binary, SshOptions ssh);

}  // namespace muster::transport
