#include "launch/rank_env.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <map>
#include <optional>

namespace muster::launch {
namespace {

std::string str(int value) {
  return std::to_string(value);
}

int node_count(const cluster::RankPlan& plan) {
  return static_cast<int>(plan.nodes.size());
}

// torchrun's rule (torch/distributed/run.py): without a user value, 1 thread per worker when several
// workers share the node, so they do not oversubscribe its cores; a lone worker keeps the OpenMP default.
std::optional<std::string> omp_num_threads(const cluster::RankAssignment& rank, const JobInfo& job) {
  if (job.omp_num_threads > 0) return str(job.omp_num_threads);
  if (job.omp_num_threads == 0 && rank.local_world_size > 1) return "1";
  return std::nullopt;
}

bool is_whole_node(const cluster::NodePlan& node) {
  if (node.host.slots <= 0 || node.ranks.size() != static_cast<size_t>(node.host.slots)) return false;
  for (size_t i = 0; i < node.ranks.size(); ++i) {
    if (node.ranks[i].device != static_cast<int>(i)) return false;
  }
  return true;
}

}  // namespace

int omp_num_threads_setting(const EnvList& user_env) {
  auto it = std::find_if(user_env.rbegin(), user_env.rend(),
                         [](const auto& entry) { return entry.first == "OMP_NUM_THREADS"; });
  if (it == user_env.rend()) return 0;
  const std::string& text = it->second;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) return -1;
  return value;
}

EnvList rank_env(const cluster::RankPlan& plan, const cluster::NodePlan& node,
                 const cluster::RankAssignment& rank, const JobInfo& job) {
  assert(rank.node_rank == node.node_rank);
  const std::string nnodes = str(node_count(plan));
  const std::string world_size = str(plan.world_size);
  const std::string local_world_size = str(rank.local_world_size);
  EnvList env = {
      {"MASTER_ADDR", job.master_addr},
      {"MASTER_PORT", str(job.master_port)},
      {"WORLD_SIZE", world_size},
      {"RANK", str(rank.global_rank)},
      {"LOCAL_RANK", str(rank.local_rank)},
      {"LOCAL_WORLD_SIZE", local_world_size},
      {"GROUP_RANK", str(node.node_rank)},
      {"ROLE_RANK", str(rank.global_rank)},
      {"ROLE_WORLD_SIZE", world_size},
      {"ROLE_NAME", "default"},
      {"NODE_RANK", str(node.node_rank)},
      {"NNODES", nnodes},
      {"GROUP_WORLD_SIZE", nnodes},
      {"CROSS_RANK", str(node.node_rank)},
      {"CROSS_SIZE", nnodes},
      {"LOCAL_SIZE", local_world_size},
      {"TORCHELASTIC_RUN_ID", job.job_id},
      {"TORCHELASTIC_RESTART_COUNT", str(job.restart_count)},
      {"TORCHELASTIC_MAX_RESTARTS", str(job.max_restarts)},
      {"TORCHELASTIC_USE_AGENT_STORE", "False"},
      {"MUSTER_JOB_ID", job.job_id},
      {"MUSTER_NODE", node.host.name},
      {"MUSTER_ATTEMPT", str(job.restart_count)},
      {"MUSTER_EXCLUDED_NODES", job.excluded_nodes},
      {"MUSTER_RESTART_REASON", job.restart_reason},
  };
  if (auto threads = omp_num_threads(rank, job)) env.emplace_back("OMP_NUM_THREADS", *threads);
  return env;
}

EnvList per_node_env(const cluster::NodePlan& node, DeviceSelection selection) {
  if (selection == DeviceSelection::whole_node || node.ranks.empty() || is_whole_node(node)) return {};
  std::string devices;
  for (const auto& rank : node.ranks) {
    if (!devices.empty()) devices += ',';
    devices += str(rank.device);
  }
  return {{"CUDA_VISIBLE_DEVICES", devices}};
}

EnvList per_node_rank_env(const cluster::RankPlan& plan, const cluster::NodePlan& node, const JobInfo& job) {
  const std::string port = str(job.master_port);
  const std::string node_rank = str(node.node_rank);
  const std::string nnodes = str(node_count(plan));
  return {
      {"MASTER_ADDR", job.master_addr},
      {"MASTER_PORT", port},
      {"NODE_RANK", node_rank},
      {"NNODES", nnodes},
      {"MUSTER_JOB_ID", job.job_id},
      {"MUSTER_NODE", node.host.name},
      {"MUSTER_ATTEMPT", str(job.restart_count)},
      {"MUSTER_EXCLUDED_NODES", job.excluded_nodes},
      {"MUSTER_RESTART_REASON", job.restart_reason},
      {"PET_MASTER_ADDR", job.master_addr},
      {"PET_MASTER_PORT", port},
      {"PET_NODE_RANK", node_rank},
      {"PET_NNODES", nnodes},
      {"PET_NPROC_PER_NODE", str(static_cast<int>(node.ranks.size()))},
  };
}

const std::vector<std::string_view>& muster_env_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all = {
        "CROSS_RANK",
        "CROSS_SIZE",
        "GROUP_RANK",
        "GROUP_WORLD_SIZE",
        "LOCAL_RANK",
        "LOCAL_SIZE",
        "LOCAL_WORLD_SIZE",
        "MASTER_ADDR",
        "MASTER_PORT",
        "MUSTER_ATTEMPT",
        "MUSTER_EXCLUDED_NODES",
        "MUSTER_JOB_ID",
        "MUSTER_NODE",
        "MUSTER_RESTART_REASON",
        "NNODES",
        "NODE_RANK",
        "PET_MASTER_ADDR",
        "PET_MASTER_PORT",
        "PET_NNODES",
        "PET_NODE_RANK",
        "PET_NPROC_PER_NODE",
        "RANK",
        "ROLE_NAME",
        "ROLE_RANK",
        "ROLE_WORLD_SIZE",
        "TORCHELASTIC_MAX_RESTARTS",
        "TORCHELASTIC_RESTART_COUNT",
        "TORCHELASTIC_RUN_ID",
        "TORCHELASTIC_USE_AGENT_STORE",
        "WORLD_SIZE",
    };
    std::sort(all.begin(), all.end());
    return all;
  }();
  return names;
}

EnvList overlay_env(EnvList base, const EnvList& top) {
  std::map<std::string, std::string> merged;
  for (auto& [name, value] : base) merged.insert_or_assign(std::move(name), std::move(value));
  for (const auto& [name, value] : top) merged.insert_or_assign(name, value);
  return EnvList(merged.begin(), merged.end());
}

}  // namespace muster::launch
