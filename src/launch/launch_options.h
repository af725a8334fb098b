// What `muster launch` runs, resolved from what the user asked (launch_request.h): the rank plan, the transport,
// the propagated environment (computed once, here), timeouts, logs. The launcher (launcher.h) only reads it.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/rank_plan.h"
#include "container/spec.h"
#include "diagnosis/catalogue.h"
#include "head/agent_pool.h"
#include "launch/env_policy.h"
#include "launch/restart_policy.h"
#include "transport/transport.h"

namespace muster::launch {

// Telemetry (launch/telemetry_hub.h, docs/design/telemetry.md): node figures and step timing from every agent.
struct TelemetryOptions {
  bool enabled = true;                    // --telemetry on|off
  std::string step_pattern;               // --step-pattern: an output line matching it is a step
  double straggler_threshold = 0.10;      // --straggler-threshold (10 %)
  int64_t straggler_window_ms = 60'000;   // --straggler-window
  int interval_ms = 1000;                 // how often agents sample
  std::string metrics_textfile;           // --metrics-textfile: Prometheus text for node_exporter
};

struct LaunchOptions {
  cluster::RankPlan plan;
  std::vector<std::string> command;  // argv of each worker (per-node mode: of each node's process)
  bool per_node = false;             // one process per node, {node_rank} etc. substituted in `command`
  bool devices_filtered = false;     // --include/--exclude picked devices: pin CUDA_VISIBLE_DEVICES
  transport::TransportKind transport = transport::TransportKind::ssh;
  transport::SshOptions ssh;
  EnvList propagated_env;   // the user's environment every worker gets (env_policy.h), before muster's variables
  // --node-local-caches (node_caches.h): each node's cache variables, by node rank, over propagated_env; filled
  // on the nodes before the job starts.
  bool node_local_caches = false;
  std::string node_cache_base;  // --node-cache-dir; empty: /tmp/muster-cache-<uid> on each node
  std::vector<EnvList> node_env;
  std::string cwd;          // workers' working directory on every node
  std::string master_addr;  // --master-addr; empty: see master_address.h
  int grace_ms = 5000;      // SIGTERM -> SIGKILL
  int heartbeat_ms = 1000;
  int heartbeat_timeout_ms = 5000;
  int max_restarts = 0;  // = restart.max_restarts (TORCHELASTIC_MAX_RESTARTS)
  // Restarts, spares and exclusion (launch/job_machine.h): the job runs on max_nodes of the plan's hosts (0: all),
  // never fewer than min_nodes; the others are spares.
  int min_nodes = 0, max_nodes = 0;
  RestartRules restart;
  int64_t exclude_cooldown_ms = 300'000;  // an excluded node may come back after this long
  std::set<int> forward_signals;          // signals to the head passed to every rank (--forward-signals)
  int max_parallel_connects = 64;
  // The launch tree (head/agent_pool.h): the head starts at most `fanout` agents, they start the rest.
  size_t fanout = head::kDefaultFanout;
  bool virtual_nodes = false;  // --transport local with named hosts: an agent per host on this machine
  // Hangs and failures explained (diagnosis/).
  int64_t hang_timeout_ms = 600'000;  // no progress on any rank this long: a stall; 0: off
  bool kill_on_hang = true;          // after the stacks are taken (--on-hang kill); false: dump only
  bool diagnostics = true;           // workers get the stack hook, faulthandler, error and progress files
  std::string python;                // the job's interpreter (the command's, or python3): for probes
  diagnosis::Catalogue catalogue;    // failure catalogue (built in + the user's files)
  std::string run_dir;  // empty: ./muster-runs/<job id>
  std::string job_id;   // resolve_launch fills it (--job-id, or generated)
  // The job runs in containers (--container-image / --container): the spec every node's agent gets, without
  // the per-node name (launch/container_launch.h). nullopt: on bare metal.
  std::optional<container::ContainerSpec> container;
  // Terminal output.
  std::string prefix_format = "[{node}:{rank}] ";
  std::string ranks_shown = "all";
  bool color = false;
  bool is_tty = false;
  bool quiet = false;  // no muster notices except errors
  // The head runs in the background (launch --detach, launch/detach.h): its terminal is <run_dir>/head.log, which
  // gets muster's own messages only (the ranks' lines are in rank-N.log, and on `muster attach`).
  bool detached = false;
  TelemetryOptions telemetry;
};

}  // namespace muster::launch
