#include "launch/worker_env.h"

#include <algorithm>

#include <fmt/core.h>

#include "launch/master_address.h"
#include "launch/node_caches.h"

namespace muster::launch {

EnvList worker_env(const LaunchOptions& options, const cluster::NodePlan& node, const cluster::RankAssignment& rank,
                   JobInfo job) {
  return worker_env(options, options.plan, static_cast<size_t>(node.node_rank), node, rank, std::move(job));
}

EnvList worker_env(const LaunchOptions& options, const cluster::RankPlan& plan, size_t host,
                   const cluster::NodePlan& node, const cluster::RankAssignment& rank, JobInfo job) {
  EnvList propagated = options.propagated_env;
  if (host < options.node_env.size()) {
    propagated = overlay_env(propagated, options.node_env[host]);
  } else if (options.node_local_caches) {  // --print-env: the directory is made on the node when the job starts
    std::string base = options.node_cache_base.empty() ? "/tmp/muster-cache-<uid>" : options.node_cache_base;
    propagated = overlay_env(propagated, node_cache_env(base + "/<" + node.host.name + "'s host name>", propagated));
  }
  job.omp_num_threads = omp_num_threads_setting(propagated);
  EnvList muster_env =
      options.per_node ? per_node_rank_env(plan, node, job) : rank_env(plan, node, rank, job);
  auto devices = options.devices_filtered ? DeviceSelection::filtered : DeviceSelection::whole_node;
  EnvList env = overlay_env(propagated, overlay_env(muster_env, per_node_env(node, devices)));
  for (const auto& [name, value] : {std::pair{"PYTHONUNBUFFERED", "1"}, {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"}}) {
    bool set = std::any_of(env.begin(), env.end(), [&](auto& kv) { return kv.first == name; });
    if (!set) env.emplace_back(name, value);
  }
  return env;
}

std::string job_python(const std::vector<std::string>& command) {
  if (command.empty()) return "python3";
  std::string program = command.front().substr(command.front().rfind('/') + 1);
  return program.rfind("python", 0) == 0 ? command.front() : "python3";
}

std::string format_worker_envs(const LaunchOptions& options) {
  JobInfo job{"<job id>", master_address(options, nullptr), 0, 0, options.max_restarts, 0, "", ""};
  std::vector<EnvListing> listings;
  for (const auto& node : options.plan.nodes) {
    std::vector<std::pair<std::string, EnvList>> processes;
    if (options.per_node) {
      processes.emplace_back("node process", worker_env(options, node, node.ranks.front(), job));
    } else {
      for (const auto& rank : node.ranks) {
        processes.emplace_back(fmt::format("rank {}", rank.global_rank), worker_env(options, node, rank, job));
      }
    }
    listings.push_back(make_env_listing(fmt::format("node {} ({})", node.node_rank, node.host.name), processes));
  }
  std::string text = format_env_listing(listings);
  if (options.container) {
    text += "# in containers: workers get this on top of the image's own environment (not the node's), plus\n"
            "# SLURM_* and CUDA_VISIBLE_DEVICES where the node's Slurm step sets them.\n";
  } else if (options.transport == transport::TransportKind::local) {
    text += "# local transport: workers also inherit this machine's environment (as torchrun's do);\n"
            "# the list above is what muster sets or propagates, and all that travels to remote nodes.\n";
  }
  text += "# MASTER_PORT is picked free on node 0 when the job starts.\n";
  if (options.diagnostics) {
    text += "# On each node the agent also sets, unless set: PYTHONFAULTHANDLER=1, PYTHONPATH=<muster's hook>:...,\n"
            "# MUSTER_PROGRESS_FILE, TORCHELASTIC_ERROR_FILE, MUSTER_STACKS_DIR, MUSTER_STACKS_SIGNAL (files in\n"
            "# ~/.local/state/muster/runs/<job>/<node>/), and on GPU nodes PyTorch's flight recorder (TORCH_NCCL_\n"
            "# TRACE_BUFFER_SIZE=2000, _DUMP_ON_TIMEOUT=1, _DEBUG_INFO_TEMP_FILE) (--no-diagnostics: none of these).\n";
  }
  return text;
}

}  // namespace muster::launch
