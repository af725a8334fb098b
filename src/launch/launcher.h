// The head's side of one `muster launch` job (launcher.cc): connect all agents (head::AgentPool) -> pick
// MASTER_PORT on node 0 -> spawn every rank -> run -> (first failure: terminate everyone) -> all ranks ended ->
// [restart] -> shut the agents down -> report (exit table, last lines, manifest.json).
#pragma once

#include "launch/launch_options.h"
#include "util/result.h"

namespace muster::launch {

// Runs the job to the end; returns the exit code of the launch (see gang.h) or an error that kept it from
// starting (unreachable node, protocol mismatch).
Result<int> run_launch(const LaunchOptions& options);

}  // namespace muster::launch
