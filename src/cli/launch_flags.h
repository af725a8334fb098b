// The flags of `muster launch` (launch_flags.cc), into a LaunchRequest.
#pragma once

#include <CLI/CLI.hpp>

#include "launch/launch_request.h"

namespace muster::cli {

void add_launch_flags(CLI::App& app, launch::LaunchRequest& request);
void add_telemetry_flags(CLI::App& app, launch::LaunchRequest& request);  // telemetry_flags.cc

}  // namespace muster::cli
