// The project config as the command line sees it: muster.toml and the user's config.toml (src/config), loaded
// once per process and checked against the command table (command_tree.h), then applied by parse_command_line
// to the options a command line left unset. Hidden commands (the agent on a node) and those marked
// !reads_config never read it.
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

#include "cluster/node_groups.h"
#include "config/settings.h"
#include "util/result.h"

namespace muster::cli {

// For parse_command_line: nullopt to go on, or the exit code after printing what is wrong with a file (also when
// a project file not allowed sets a key that needs an allow: config/trust.h). Names the project file on stderr
// when it sets anything the command takes.
std::optional<int> apply_project_config(CLI::App& app);

// The files in force, checked; warnings about ignored files are printed once. Null on error (printed).
const config::ConfigSet* checked_project_config();

// The node groups of the files in force ([groups]: config/node_groups.h); none when a file is bad (the error is
// printed once, and the command's parse fails on it).
cluster::NodeGroups configured_node_groups();

// Whether the command whose app this is reads the config.
bool reads_config(const CLI::App& app);

}  // namespace muster::cli
