#include "launch/launch_setup.h"

#include <algorithm>
#include <filesystem>

#include "launch/redact_command.h"
#include "posix/environment.h"
#include "posix/proc.h"
#include "posix/signals.h"

namespace muster::launch {

// Per-node mode runs one process per node; for the job machine and the logs that is a plan of one rank per node.
cluster::RankPlan gang_plan_of(const LaunchOptions& options) {
  if (!options.per_node) return options.plan;
  cluster::RankPlan single;
  for (const auto& node : options.plan.nodes) {
    cluster::NodePlan copy = node;
    copy.first_global_rank = node.node_rank;
    copy.ranks = {cluster::RankAssignment{node.node_rank, 0, node.node_rank, 1, 0}};
    single.nodes.push_back(copy);
  }
  single.world_size = static_cast<int>(options.plan.nodes.size());
  single.max_local_world_size = 1;
  return single;
}

JobSpec job_spec(const LaunchOptions& options) {
  JobSpec spec;
  spec.plan = gang_plan_of(options);
  spec.min_nodes = options.min_nodes;
  spec.max_nodes = options.max_nodes;
  spec.restart = options.restart;
  spec.grace_ms = options.grace_ms;
  spec.cooldown_ms = options.exclude_cooldown_ms;
  spec.hang_timeout_ms = options.hang_timeout_ms;
  spec.kill_on_hang = options.kill_on_hang;
  spec.forward_signals = options.forward_signals;
  return spec;
}

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
  if (spares) {
    pool.tolerate_unreachable = true;
    pool.required_nodes = static_cast<size_t>(options.min_nodes);
  }
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
