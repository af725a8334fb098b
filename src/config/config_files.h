// Finding and reading the config files: the project's muster.toml, in the working directory or the nearest
// parent that has one, and the user's $XDG_CONFIG_HOME/muster/config.toml (~/.config/muster/config.toml).
// A file is used only if it belongs to this user or root and is not writable by everyone: a muster.toml that
// another user left in /tmp must not choose ssh options or commands for you (as git's safe.directory). Such a
// file is skipped with a warning; a file that cannot be read or parsed is an error naming it.
#pragma once

#include <string>

#include "config/settings.h"
#include "util/result.h"

namespace muster::config {

inline constexpr const char* kProjectFileName = "muster.toml";

struct ConfigLocations {
  std::string start_directory;  // where the search for muster.toml starts (absolute)
  std::string user_path;        // the user's config.toml
};

// The locations for this process: the working directory, XDG_CONFIG_HOME or HOME.
ConfigLocations default_locations();

// The user's config path from XDG_CONFIG_HOME (used when absolute) or the home directory.
std::string user_config_path(const char* xdg_config_home, const std::string& home);

// Reads the files at `where` (each optional). `uid` is the user whose files are trusted (besides root's).
Result<ConfigSet> load_config(const ConfigLocations& where, uint32_t uid);

}  // namespace muster::config
