// Everything `muster launch` needs, already parsed and validated by the CLI layer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/rank_plan.h"
#include "head/agent_pool.h"
#include "launch/env_policy.h"
#include "transport/transport.h"

namespace muster::launch {

struct LaunchOptions {
  cluster::RankPlan plan;
  std::vector<std::string> command;  // argv of each worker (per-node mode: of each node's process)
  bool per_node = false;             // one process per node, {node_rank} etc. substituted in `command`
  bool devices_filtered = false;     // --include/--exclude picked devices: pin CUDA_VISIBLE_DEVICES
  transport::TransportKind transport = transport::TransportKind::ssh;
  transport::SshOptions ssh;
  std::map<std::string, std::string> head_env;  // the head's environment, for the env policy
  EnvPolicy env_policy;
  std::string cwd;          // workers' working directory on every node
  std::string master_addr;  // empty: the address the head reached node 0 on
  int grace_ms = 5000;      // SIGTERM -> SIGKILL
  int heartbeat_ms = 1000;
  int heartbeat_timeout_ms = 5000;
  int max_restarts = 0;
  int max_parallel_connects = 64;
  std::string run_dir;  // empty: ./muster-runs/<job id>
  std::string job_id;   // empty: generated
  // Terminal output.
  std::string prefix_format = "[{node}:{rank}] ";
  std::string ranks_shown = "all";
  bool color = false;
  bool is_tty = false;
  bool quiet = false;  // no muster notices except errors
};

// Runs the job to the end; returns the exit code of the launch (see gang.h) or an error that kept it
// from starting (unreachable node, protocol mismatch).
Result<int> run_launch(const LaunchOptions& options);

}  // namespace muster::launch
