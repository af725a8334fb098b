// A subcommand of `muster`: the CLI is a table of these (see commands.cc), in the manner of ninja's tools.
// `run` receives the arguments after the subcommand name and returns the process exit code; it is the only
// place where errors become exit codes (see exit_codes.h). `run` builds its CLI11 app and hands it to
// parse_command_line before it does anything else: man pages, completions and config keys come from calling
// every listed command with --help under a ParseHook (command_tree.h), which must start nothing.
#pragma once

#include <string>
#include <vector>

namespace muster::cli {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
  bool hidden = false;  // internal commands (agent) are not listed by `muster help`, man pages or completions
  bool reads_config = true;  // takes unset options from muster.toml (src/config); false for help, version, ...
};

// The table, in the order `muster help` lists it.
const std::vector<Command>& all_commands();

// Entry point used by main(): dispatches argv[1] through the table.
int run_cli(int argc, char** argv);

}  // namespace muster::cli
