// The head's side of one `muster launch` job (launcher.cc): connect all agents (head::AgentPool) -> pick
// MASTER_PORT on node 0 -> spawn every rank -> run -> (first failure: terminate everyone) -> all ranks ended ->
// [restart] -> shut the agents down -> report (exit table, last lines, manifest.json).
#pragma once

#include <functional>
#include <string>

#include "launch/launch_options.h"
#include "util/result.h"

namespace muster::launch {

struct LaunchHooks {
  // Called once, from the loop, when every rank of the first attempt has started and the job runs
  // (`launch --detach`: the moment its parent may return). Not called when the job ends or fails before that.
  std::function<void(const std::string& job_id, const std::string& run_dir)> on_running;
};

// Runs the job to the end; returns the exit code of the launch (see gang.h) or an error that kept it from
// starting (unreachable node, protocol mismatch).
Result<int> run_launch(const LaunchOptions& options, const LaunchHooks& hooks = {});

}  // namespace muster::launch
