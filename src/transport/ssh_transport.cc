// The ssh transport: the system OpenSSH client, multiplexed, running the bootstrap script on the node.
#include <csignal>
#include <cstdlib>
#include <filesystem>

#include "transport/spawn_agent.h"
#include "transport/ssh_command.h"
#include "transport/transport.h"

namespace muster::transport {
namespace {

std::string default_control_dir() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string base = cache && *cache ? cache : std::string(home ? home : "/tmp") + "/.cache";
  return base + "/muster/ssh";
}

class SshTransport final : public Transport {
 public:
  SshTransport(SelfBinary binary, SshOptions options) : binary_(std::move(binary)), options_(std::move(options)) {
    if (options_.multiplex && options_.control_dir.empty()) options_.control_dir = default_control_dir();
    if (options_.multiplex) {
      std::error_code ignored;  // without the directory ssh just runs unmultiplexed
      std::filesystem::create_directories(options_.control_dir, ignored);
      std::filesystem::permissions(options_.control_dir, std::filesystem::perms::owner_all, ignored);
    }
  }
  const char* name() const override { return "ssh"; }
  Result<AgentProcess> start(const AgentTarget& target) override {
    auto argv = ssh_argv(options_, target.destination, remote_agent_command(binary_, target.agent_args));
    // SIGTERM (not KILL): a dying head takes its ssh clients along, and they close their sessions cleanly.
    return spawn_with_pipes(argv, SIGTERM, /*new_session=*/true);
  }

 private:
  SelfBinary binary_;
  SshOptions options_;
};

}  // namespace

std::unique_ptr<Transport> make_ssh_transport(SelfBinary binary, SshOptions options) {
  return std::make_unique<SshTransport>(std::move(binary), std::move(options));
}

}  // namespace muster::transport
