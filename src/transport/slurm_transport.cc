// The slurm transport: inside an allocation, one `srun` step per node carries the agent (srun_command.h),
// running the same bootstrap script as ssh, so nodes without muster get it uploaded through srun's stdin.
// No ssh anywhere: slurmd starts the step, srun forwards stdin and stdout byte for byte (--unbuffered).
//
// Teardown: the head closing the agent's stdin reaches the agent as EOF (it stops its workers with their
// grace). SIGTERM to srun (a lost node, the head dying: parent-death signal) makes srun SIGKILL the step's
// tasks; the agent's workers then die by their parent-death signal and the agent's guard, as on ssh.
#include <csignal>
#include <cstdlib>

#include "transport/spawn_agent.h"
#include "transport/srun_command.h"
#include "transport/transport.h"

namespace muster::transport {
namespace {

// The head's values of the variables srun_argv gives back to the agent.
std::map<std::string, std::string> head_slurm_env() {
  std::map<std::string, std::string> env;
  std::vector<std::string> names = srun_input_variables_removed();
  names.push_back("SLURM_JOB_NAME");
  for (const auto& name : names) {
    if (const char* value = std::getenv(name.c_str())) env[name] = value;
  }
  return env;
}

class SlurmTransport final : public Transport {
 public:
  explicit SlurmTransport(SelfBinary binary) : binary_(std::move(binary)), head_env_(head_slurm_env()) {}
  const char* name() const override { return "slurm"; }
  Result<AgentProcess> start(const AgentTarget& target) override {
    if (target.destination.find('@') != std::string::npos) {
      return make_error(ErrorKind::usage,
                        "{}: the slurm transport runs agents as the job's own user; drop the 'user@'",
                        target.node);
    }
    auto argv = srun_argv(target.destination, head_env_, bootstrap_words(binary_, target.agent_args));
    return spawn_with_pipes(argv, SIGTERM, /*new_session=*/true);
  }

 private:
  SelfBinary binary_;
  std::map<std::string, std::string> head_env_;
};

}  // namespace

std::unique_ptr<Transport> make_slurm_transport(SelfBinary binary) {
  return std::make_unique<SlurmTransport>(std::move(binary));
}

}  // namespace muster::transport
