#include "launch/master_address.h"

namespace muster::launch {

std::string master_address(const LaunchOptions& options, const protocol::Hello* node0) {
  if (!options.master_addr.empty()) return options.master_addr;
  if (options.transport == transport::TransportKind::local) return "127.0.0.1";
  const std::string& name = options.plan.nodes.empty() ? std::string() : options.plan.nodes.front().host.name;
  if (options.transport == transport::TransportKind::slurm) return name;
  if (node0 == nullptr) return "<address of node 0>";
  if (!node0->ssh_addr.empty()) return node0->ssh_addr;
  return node0->addresses.empty() ? name : node0->addresses.front();
}

}  // namespace muster::launch
