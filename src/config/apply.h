// Settings from the config files into a parsed CLI11 app: every option the command line left unset (and that
// no option given on the command line excludes) takes its value from the first file that has it, in that
// file from the most specific table ([gen.sbatch], then [gen], then the top level). Values go through CLI11
// like typed ones (its checks and conversions), so a bad value is reported as the file's: file:line, key,
// CLI11's reason. Paths (options typed FILE or DIR) are relative to the file's directory; `~/` is the home
// directory. A flag on the command line replaces the file's value, lists included.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/settings.h"
#include "util/result.h"

namespace muster::config {

struct Applied {
  const Setting* setting = nullptr;     // the one in force
  std::vector<const Setting*> shadowed;  // lower-precedence settings of the same option
};

// Keyed by command path and option key: "launch nproc-per-node".
using AppliedSettings = std::map<std::string, Applied>;

// Applies `config` to `app` (at `path` in muster's tree) and to the subcommands the command line chose (with
// `every_subcommand`, to all of them: for an app that was never parsed, to check or show every value).
// `home` expands `~/`. The settings in `config` must outlive the result.
Result<AppliedSettings> apply_config(CLI::App& app, const std::vector<std::string>& path, const ConfigSet& config,
                                     const std::string& home, bool every_subcommand = false);

// The key of an option in AppliedSettings.
std::string applied_key(const std::vector<std::string>& path, const std::string& option_key);

}  // namespace muster::config
