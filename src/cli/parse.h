// Command-line parsing shared by the subcommands (CLI11 underneath).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace muster::cli {

// Parses `args` into `app`, then gives the options the command line left unset their values from the project
// config (muster.toml, ~/.config/muster/config.toml; see src/config) unless the command reads none. Returns
// nullopt when the command should go on, or the exit code to return: 0 after --help, kExitUsage after a usage
// error or a bad config file (printed, with "did you mean" for a mistyped flag or key).
// Under a ParseHook, the hook decides instead.
std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args);

// The parse alone: no hook, no config.
std::optional<int> parse_arguments(CLI::App& app, const std::vector<std::string>& args);

// While a ParseHook lives, parse_command_line hands every app to it instead: the command returns what the hook
// returns (nullopt lets it go on). This is how muster reads its own command table as data (command_tree.h) and
// how `muster config CMD ...` shows a command's settings without running it. Hooks nest; one thread.
class ParseHook {
 public:
  using Visit = std::function<std::optional<int>(CLI::App& app, const std::vector<std::string>& args)>;
  // `describing`: the table is being walked for its definition (see describing_commands()).
  ParseHook(Visit visit, bool describing);
  ~ParseHook();
  ParseHook(const ParseHook&) = delete;
  ParseHook& operator=(const ParseHook&) = delete;

 private:
  friend std::optional<int> parse_command_line(CLI::App&, const std::vector<std::string>&);
  friend bool describing_commands();
  Visit visit_;
  bool describing_;
  ParseHook* outer_;
};

// True while the command table is walked for its definition (run with --help under a describing hook): a command
// that builds several apps itself (gen, one per kind) then hands each of them to parse_command_line.
bool describing_commands();

// Prints "muster <cmd>: unknown option 'X', did you mean 'Y'?" and returns kExitUsage.
int report_unknown_option(const CLI::App& app, const std::string& option);

// For an app with prefix_command(): what it did not parse is the command (after an optional `--`). A first word
// that starts with '-' and no `--` before it is a mistyped option: reported, and the exit code returned.
std::optional<int> take_command(const CLI::App& app, std::vector<std::string>& command);

// A CLI::App for `muster <name>` with muster's conventions (help flag, footer, option grouping).
std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description);

}  // namespace muster::cli
