#include "transport/ssh_master.h"
#include "transport/transport.h"

namespace muster::transport {

void end_transport(AgentProcess& process, int signal) {
  if (process.process.pid() > 0) (void)process.process.signal(signal);
  process.master_control.reset();
}

bool transport_ended(AgentProcess& process) {
  if (process.process.pid() > 0) return process.process.try_wait().has_value();
  return !process.master_control.valid();
}

std::string end_failed_master_session(AgentProcess& process, int wait_ms) {
  if (!process.master_control.valid()) return "";
  std::string reason = master_refusal(process.master_control.get(), wait_ms);
  process.master_control.reset();
  return reason.empty() ? "" : std::string(kMasterRefused) + reason;
}

}  // namespace muster::transport
