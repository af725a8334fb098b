// The ssh transport: the system OpenSSH client, multiplexed, running the bootstrap script on the node.
#include <csignal>
#include <optional>
#include <set>
#include <string>

#include "posix/file.h"
#include "posix/private_dir.h"
#include "transport/spawn_agent.h"
#include "transport/ssh_command.h"
#include "transport/ssh_kex.h"
#include "transport/ssh_master.h"
#include "transport/transport.h"

namespace muster::transport {
namespace {

// The ControlPath directory: a socket there is a way into every connection to a node, so it must be the user's
// alone (posix/private_dir.h): ~/.cache/muster/ssh, or a directory the options name; made once, when the first
// agent starts. Without a home directory, no multiplexing (never a shared /tmp path another user could create).
Result<std::string> control_dir(const SshOptions& options) {
  if (!options.control_dir.empty()) {
    auto slash = options.control_dir.find_last_of('/');
    if (slash == std::string::npos || slash == 0) return posix::make_private_dir(".", options.control_dir);
    return posix::make_private_dir(options.control_dir.substr(0, slash), options.control_dir.substr(slash + 1));
  }
  std::string cache = posix::user_cache_dir();
  if (cache.empty()) return std::string();
  return posix::make_private_dir(cache, "muster/ssh");
}

class SshTransport final : public Transport {
 public:
  SshTransport(SelfBinary binary, SshOptions options) : binary_(std::move(binary)), options_(std::move(options)) {}
  const char* name() const override { return "ssh"; }
  Result<AgentProcess> start(const AgentTarget& target) override {
    if (options_.multiplex && !control_checked_) {
      auto dir = control_dir(options_);
      if (!dir) return make_error(dir.error().kind, "ssh connection sharing: {}", dir.error().message);
      options_.control_dir = *dir;
      options_.multiplex = !dir->empty();
      control_checked_ = true;
    }
    std::string command = remote_agent_command(binary_, target.agent_args);
    if (options_.multiplex) {
      if (auto session = open_master_session(control_path(options_, target.destination), command)) {
        via_master_.insert(target.destination);
        return std::move(*session);
      }
    }
    via_master_.erase(target.destination);
    auto argv = ssh_argv(options_, target.destination, command);
    // SIGTERM (not KILL): a dying head takes its ssh clients along, and they close their sessions cleanly.
    return spawn_with_pipes(argv, SIGTERM, /*new_session=*/true);
  }
  std::optional<Result<AgentProcess>> restart(const AgentTarget& target, std::string_view diagnostics) override {
    SshOptions own = options_;
    if (diagnostics.find(kMasterRefused) != std::string_view::npos) {
      own.multiplex = false;  // a connection of its own, beside the master that is full
    } else if (diagnostics.find(kNoAnswer) != std::string_view::npos && via_master_.count(target.destination)) {
      // The master took the session and nothing came: its connection may hang (a partition that healed, a
      // rebooted node). Its socket goes (the master ends by itself, ServerAliveInterval) and the next start and
      // this one make connections of their own.
      (void)posix::remove_file(control_path(options_, target.destination));
      own.multiplex = false;
    } else if (kex_algorithms(options_.kex) && !sets_kex(options_.extra_options) && kex_refused(diagnostics)) {
      own.kex = kKexDefault;
    } else {
      return std::nullopt;
    }
    auto argv = ssh_argv(own, target.destination, remote_agent_command(binary_, target.agent_args));
    return spawn_with_pipes(argv, SIGTERM, /*new_session=*/true);
  }

 private:
  SelfBinary binary_;
  SshOptions options_;
  bool control_checked_ = false;
  std::set<std::string> via_master_;  // destinations whose last start went through an open master
};

}  // namespace

std::unique_ptr<Transport> make_ssh_transport(SelfBinary binary, SshOptions options) {
  return std::make_unique<SshTransport>(std::move(binary), std::move(options));
}

}  // namespace muster::transport
