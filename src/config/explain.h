// `muster config`'s view of a command: each option's effective value and where it comes from ("flag", the
// file:line of a setting, or "default"), with the settings a file value hides, from the app after parsing and
// apply_config. Reads the app; its values stay as they were.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/apply.h"

namespace muster::config {

// Every option of `app` and of the subcommands the command line chose.
std::string render_effective_settings(CLI::App& app, const std::vector<std::string>& path,
                                      const AppliedSettings& applied);

// Only the options the files set, as TOML lines with their sources in comments (every subcommand); empty when
// the files set nothing for this command.
std::string render_file_settings(CLI::App& app, const std::vector<std::string>& path, const AppliedSettings& applied);

// `values` as a TOML value for an option of this kind: a list for a repeatable option, numbers and booleans
// bare, text quoted.
std::string toml_value(const CLI::Option& option, const std::vector<std::string>& values);

}  // namespace muster::config
