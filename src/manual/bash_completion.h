// The bash completion script for muster, generated from the command definitions: commands and subcommands,
// every option of each, the values of options with a fixed set (--transport), files and directories where an
// option or argument names one, and the command to run after `--`. Self-contained (plain `complete -F`); with
// the bash-completion package it also completes the arguments of that command. Pure; installed as
// share/bash-completion/completions/muster.
#pragma once

#include <string>
#include <vector>

#include "cli_spec/command_spec.h"

namespace muster::manual {

std::string render_bash_completion(const std::vector<cli_spec::CommandSpec>& commands);

}  // namespace muster::manual
