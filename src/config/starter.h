// `muster init`'s starter muster.toml, from the command definitions: a header saying how the file works, the
// settings the user gave (at the top level, so every command that has the option gets them; under the first
// command that has it when the key means different things for different commands), init's other cluster
// options commented out with their help, then [launch] and [sync] with every key commented out. The text always
// passes check.h (tested). Pure apart from reading the parsed app.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_spec/command_spec.h"

namespace muster::config {

struct StarterInput {
  CLI::App* init_app = nullptr;        // parsed: the options given are the settings
  std::vector<std::string> own_keys;   // init's options that are not settings (-o, --force)
  std::string command_line;            // for the header
  std::string output_directory;        // relative paths given are rewritten relative to it
  std::string working_directory;       // ... from here
};

std::string render_starter(const StarterInput& input, const std::vector<cli_spec::CommandSpec>& commands);

}  // namespace muster::config
