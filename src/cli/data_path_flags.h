// The flags of sync's direct data path, shared by `muster sync` and `muster image push`: --data-path,
// --trusted-network, --streams (sync_head/run_sync.h DataPathFlags).
#pragma once

#include <CLI/CLI.hpp>

#include "sync_head/run_sync.h"

namespace muster::cli {

void add_data_path_options(CLI::App& app, sync_head::DataPathFlags& flags);

}  // namespace muster::cli
