#include "head/connect.h"

#include <algorithm>
#include <cstdlib>

namespace muster::head {

bool all_local(const std::vector<cluster::NodeSlots>& nodes) {
  return std::all_of(nodes.begin(), nodes.end(), [](const cluster::NodeSlots& node) {
    return node.host.user.empty() && (node.host.name == "localhost" || node.host.name == "127.0.0.1");
  });
}

Result<transport::TransportKind> choose_transport(const std::string& name, const HostSelection& hosts,
                                                  const std::vector<cluster::NodeSlots>& nodes) {
  if (name == "local") return transport::TransportKind::local;
  if (name == "ssh") return transport::TransportKind::ssh;
  const char* job = std::getenv("SLURM_JOB_ID");
  bool in_allocation = job && *job;
  if (name == "slurm") {
    if (in_allocation) return transport::TransportKind::slurm;
    return make_error(ErrorKind::usage,
                      "--transport slurm starts agents with srun inside a Slurm allocation, but SLURM_JOB_ID is not "
                      "set: run muster in salloc or an sbatch script, or submit with `muster submit`");
  }
  if (all_local(nodes)) return transport::TransportKind::local;
  if (in_allocation && !hosts_given(hosts)) return transport::TransportKind::slurm;
  return transport::TransportKind::ssh;
}

Result<std::vector<PoolNode>> select_pool_nodes(const ConnectOptions& flags,
                                                transport::TransportKind& transport) {
  auto nodes = resolve_hosts(flags.hosts);
  if (!nodes) return nodes.error();
  std::vector<PoolNode> pool_nodes;
  for (const auto& node : *nodes) pool_nodes.push_back({node.host.name, node.host.destination()});
  auto chosen = choose_transport("auto", flags.hosts, *nodes);
  if (!chosen) return chosen.error();
  transport = *chosen;
  return pool_nodes;
}

Result<std::unique_ptr<AgentPool>> connect_nodes(const ConnectOptions& flags, std::vector<PoolNode> nodes,
                                                 transport::TransportKind transport) {
  PoolOptions options;
  options.transport = transport;
  options.ssh.connect_timeout_s = flags.connect_timeout_s;
  options.ssh.config_file = flags.ssh_config;
  options.ssh.kex = flags.ssh_kex;
  options.ssh.cipher = flags.ssh_cipher;
  options.fanout = flags.fanout;
  options.fall_back_to_star = flags.fall_back_to_star;
  auto pool = AgentPool::create(std::move(nodes), options);
  if (!pool) return pool.error();
  if (auto connected = (*pool)->connect(); !connected) return connected.error();
  return pool;
}

Result<std::unique_ptr<AgentPool>> connect_pool(const ConnectOptions& flags, std::vector<std::string>& names) {
  transport::TransportKind transport;
  auto nodes = select_pool_nodes(flags, transport);
  if (!nodes) return nodes.error();
  for (const auto& node : *nodes) names.push_back(node.name);
  return connect_nodes(flags, std::move(*nodes), transport);
}

}  // namespace muster::head
