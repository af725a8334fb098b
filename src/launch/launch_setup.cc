#include "launch/launch_setup.h"

#include <algorithm>
#include <filesystem>

#include "launch/redact_command.h"
#include "posix/environment.h"
#include "posix/proc.h"
#include "posix/signals.h"

namespace muster::launch {

head::PoolOptions pool_options(const LaunchOptions& options) {
  head::PoolOptions pool;
  pool.transport = options.transport;
  pool.ssh = options.ssh;
  pool.heartbeat_ms = options.heartbeat_ms;
  pool.heartbeat_timeout_ms = options.heartbeat_timeout_ms;
  pool.max_parallel_connects = options.max_parallel_connects;
  pool.fanout = options.fanout;
  pool.virtual_nodes = options.virtual_nodes;
  size_t hosts = options.plan.nodes.size();
  bool spares = options.min_nodes > 0 && static_cast<size_t>(options.min_nodes) < hosts;
  // With spares, a host that cannot be reached is one fewer spare, not an error: the job needs min_nodes.
  if (spares) pool.required_nodes = static_cast<size_t>(options.min_nodes);
  return pool;
}

std::vector<int> launch_signals(const LaunchOptions& options) {
  std::vector<int> signals = posix::SignalBlock::default_signals();
  for (int signal : options.forward_signals) {
    if (std::find(signals.begin(), signals.end(), signal) == signals.end()) signals.push_back(signal);
  }
  return signals;
}

head::JobRecord job_record(const LaunchOptions& options, const cluster::RankPlan& plan, const std::string& job_id,
                           const std::string& run_dir) {
  head::JobRecord record;
  record.job_id = job_id;
  record.run_dir = std::filesystem::absolute(run_dir).lexically_normal().string();
  record.pid = posix::current_pid();
  record.pid_start = posix::process_start_time(record.pid).value_or(0);
  record.nodes = static_cast<int>(plan.nodes.size());
  record.ranks = plan.world_size;
  for (const auto& word : redact_command(options.command)) record.command += (record.command.empty() ? "" : " ") + word;
  for (const auto& node : plan.nodes) {
    record.layout.push_back({node.host.name, node.first_global_rank, static_cast<int>(node.ranks.size())});
  }
  record.detached = options.detached;
  return record;
}

nlohmann::json excluded_json(const NodeRoster& roster) {
  nlohmann::json nodes = nlohmann::json::object();
  for (size_t node : roster.excluded()) {
    const auto& exclusion = *roster.exclusion(node);
    nodes[roster.name(node)] = {{"reason", exclusion.reason}, {"attempt", exclusion.attempt}};
  }
  return nodes;
}

}  // namespace muster::launch
