// muster's command table read as data, for man pages, shell completions, the project config's keys and
// `muster init`: each listed command's run function is called with --help under a describing ParseHook, so the
// CLI11 app it builds reaches the visitor (alive, with its options bound) instead of being parsed. Nothing runs.
// Hidden commands (agent, node, the generators) are left out: users never type them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli_spec/command_spec.h"

namespace muster::cli {

// `path` is the app's place in the tree: {"launch"}, {"gen", "sbatch"} (gen builds one app per kind).
// Returns the names of listed commands whose run function handed no app over (a bug: see command.h).
using AppVisitor = std::function<void(const Command& command, CLI::App& app, const std::vector<std::string>& path)>;
std::vector<std::string> visit_command_apps(const AppVisitor& visit);

// Every listed command as a CommandSpec, in the table's order, with the table's summary; gen's kinds (and
// setup's CLI11 subcommands) as subcommands. `missing` gets the commands that handed no app over.
std::vector<cli_spec::CommandSpec> describe_commands(std::vector<std::string>* missing = nullptr);

// The command whose app is `app`, from its name ("muster gen sbatch" -> gen) and its path ({"gen", "sbatch"}).
std::vector<std::string> app_path(const CLI::App& app);

}  // namespace muster::cli
