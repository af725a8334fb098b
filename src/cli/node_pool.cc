#include "cli/node_pool.h"

#include <algorithm>
#include <cstdlib>

namespace muster::cli {

void add_pool_flags(CLI::App& app, PoolFlags& flags) {
  app.add_option("--connect-timeout", flags.connect_timeout_s, "seconds to reach a node")->group("ssh")
      ->check(CLI::Range(1, 600));
  app.add_option("--ssh-config", flags.ssh_config, "ssh -F FILE instead of ~/.ssh/config")->group("ssh");
}

bool all_local(const std::vector<cluster::NodeSlots>& nodes) {
  return std::all_of(nodes.begin(), nodes.end(), [](const cluster::NodeSlots& node) {
    return node.host.user.empty() && (node.host.name == "localhost" || node.host.name == "127.0.0.1");
  });
}

Result<head::TransportKind> choose_transport(const std::string& name, const HostOptions& hosts,
                                             const std::vector<cluster::NodeSlots>& nodes) {
  if (name == "local") return head::TransportKind::local;
  if (name == "ssh") return head::TransportKind::ssh;
  const char* job = std::getenv("SLURM_JOB_ID");
  bool in_allocation = job && *job;
  if (name == "slurm") {
    if (in_allocation) return head::TransportKind::slurm;
    return make_error(ErrorKind::usage,
                      "--transport slurm starts agents with srun inside a Slurm allocation, but SLURM_JOB_ID is not "
                      "set: run muster in salloc or an sbatch script, or submit with `muster submit`");
  }
  if (all_local(nodes)) return head::TransportKind::local;
  bool hosts_given = !hosts.hostfile.empty() || !hosts.hosts.empty();
  return in_allocation && !hosts_given ? head::TransportKind::slurm : head::TransportKind::ssh;
}

Result<std::vector<head::PoolNode>> select_pool_nodes(const PoolFlags& flags, head::TransportKind& transport) {
  auto nodes = resolve_hosts(flags.hosts);
  if (!nodes) return nodes.error();
  std::vector<head::PoolNode> pool_nodes;
  for (const auto& node : *nodes) pool_nodes.push_back({node.host.name, node.host.destination()});
  transport = choose_transport("auto", flags.hosts, *nodes).value();  // auto never fails
  return pool_nodes;
}

Result<std::unique_ptr<head::AgentPool>> connect_nodes(const PoolFlags& flags, std::vector<head::PoolNode> nodes,
                                                       head::TransportKind transport) {
  head::PoolOptions options;
  options.transport = transport;
  options.ssh.connect_timeout_s = flags.connect_timeout_s;
  options.ssh.config_file = flags.ssh_config;
  auto pool = head::AgentPool::create(std::move(nodes), options);
  if (!pool) return pool.error();
  if (auto connected = (*pool)->connect(); !connected) return connected.error();
  return pool;
}

Result<std::unique_ptr<head::AgentPool>> connect_pool(const PoolFlags& flags, std::vector<std::string>& names) {
  head::TransportKind transport;
  auto nodes = select_pool_nodes(flags, transport);
  if (!nodes) return nodes.error();
  for (const auto& node : *nodes) names.push_back(node.name);
  return connect_nodes(flags, std::move(*nodes), transport);
}

}  // namespace muster::cli
