// Command-line parsing shared by the subcommands (CLI11 underneath).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace muster::cli {

// Parses `args` into `app`. Returns nullopt when the command should go on, or the exit code to return:
// 0 after --help, kExitUsage after a usage error (printed, with "did you mean" for a mistyped flag).
std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args);

// Prints "muster <cmd>: unknown option 'X', did you mean 'Y'?" and returns kExitUsage.
int report_unknown_option(const CLI::App& app, const std::string& option);

// For an app with prefix_command(): what it did not parse is the command (after an optional `--`). A first word
// that starts with '-' and no `--` before it is a mistyped option: reported, and the exit code returned.
std::optional<int> take_command(const CLI::App& app, std::vector<std::string>& command);

// A CLI::App for `muster <name>` with muster's conventions (help flag, footer, option grouping).
std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description);

}  // namespace muster::cli
