// What a launch derives from its options before the job runs, each in one place: the pool's options (transport,
// heartbeats, the launch tree; with spares, the nodes that must start), the signals its loop takes, the job's
// registry record, and the exclusions as the manifest records them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "head/agent_pool.h"
#include "head/job_registry.h"
#include "launch/job_machine.h"
#include "launch/launch_options.h"
#include "launch/node_roster.h"

namespace muster::launch {

// Per-node mode runs one process per node; for the job machine and the logs that is a plan of one rank per node.
cluster::RankPlan gang_plan_of(const LaunchOptions& options);
// The job machine's spec (job_machine.h) from the launch's options.
JobSpec job_spec(const LaunchOptions& options);
head::PoolOptions pool_options(const LaunchOptions& options);
// SignalBlock's default signals and every --forward-signals one.
std::vector<int> launch_signals(const LaunchOptions& options);
head::JobRecord job_record(const LaunchOptions& options, const cluster::RankPlan& plan, const std::string& job_id,
                           const std::string& run_dir);
nlohmann::json excluded_json(const NodeRoster& roster);

}  // namespace muster::launch
