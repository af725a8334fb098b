// The local transport: the agent is a child of the head on this machine. It closes with the head through
// stdin EOF (the agent's own teardown), so no parent-death signal is set and workers get their grace.
#include <csignal>

#include "transport/spawn_agent.h"
#include "transport/transport.h"

namespace muster::transport {
namespace {

class LocalTransport final : public Transport {
 public:
  explicit LocalTransport(SelfBinary binary) : binary_(std::move(binary)) {}
  const char* name() const override { return "local"; }
  Result<AgentProcess> start(const AgentTarget& target) override {
    std::vector<std::string> argv = {binary_.path, "agent"};
    argv.insert(argv.end(), target.agent_args.begin(), target.agent_args.end());
    // A session of its own, as sshd (per connection) and slurmstepd (per step) give an agent: the agent tells its
    // workers' groups from a reused group id by the session (posix/process_groups.h), so no job of the user's
    // shell may share it.
    return spawn_with_pipes(argv, 0, /*new_session=*/true);
  }

 private:
  SelfBinary binary_;
};

}  // namespace

std::unique_ptr<Transport> make_local_transport(SelfBinary binary) {
  return std::make_unique<LocalTransport>(std::move(binary));
}

}  // namespace muster::transport
