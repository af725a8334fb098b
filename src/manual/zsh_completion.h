// The zsh completion function for muster (`#compdef muster`), generated from the command definitions: one
// `_arguments` spec per command with every option, its help as the description, fixed values, files and
// directories, and the command to run after the options. Pure; installed as _muster in zsh's function path.
#pragma once

#include <string>
#include <vector>

#include "cli_spec/command_spec.h"

namespace muster::manual {

std::string render_zsh_completion(const std::vector<cli_spec::CommandSpec>& commands);

}  // namespace muster::manual
