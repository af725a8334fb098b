// `muster init`'s whole flow: where the starter file goes (-o, --user, ./muster.toml), refusing to replace one
// without --force, the text of starter.h read back and checked (check.h) before anything is written, the file
// written atomically (0644, its directory made) and, a project file, allowed as written (trust.h: the settings are
// the user's own, typed to init), and the line saying what was written.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_spec/command_spec.h"
#include "util/result.h"

namespace muster::config {

struct InitOptions {
  CLI::App* init_app = nullptr;       // parsed: the options given become the settings
  std::vector<std::string> own_keys;  // init's options that are not settings (output, user, force)
  std::string command_line;           // for the file's header
  std::string output;                 // empty: ./muster.toml
  bool user = false;                  // ~/.config/muster/config.toml (XDG_CONFIG_HOME) instead
  bool force = false;                 // replace an existing file
};

// `commands` are every command's definitions (cli::describe_commands()): the file's keys and its check.
Result<void> write_starter(const InitOptions& options, const std::vector<cli_spec::CommandSpec>& commands);

}  // namespace muster::config
