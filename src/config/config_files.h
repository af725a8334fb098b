// Finding and reading the config files: the project's muster.toml, in the working directory or the nearest
// parent that has one, and the user's $XDG_CONFIG_HOME/muster/config.toml (~/.config/muster/config.toml).
// A file is used only if it is a regular file (looked at with lstat, opened O_NOFOLLOW | O_NONBLOCK: a FIFO named
// muster.toml in /tmp must not hang every command below it, a link is not followed), belongs to this user or root
// and is writable by neither group nor others: a muster.toml that another user left in /tmp, or could change,
// must not choose ssh options or commands for you (as git's safe.directory, and ssh for its config). Such a file
// is skipped with a warning; a file that cannot be read or parsed is an error naming it. A project file's keys
// that run commands or send the job elsewhere also need the user's allow of its content (trust.h).
#pragma once

#include <string>

#include "config/settings.h"
#include "util/result.h"

namespace muster::config {

inline constexpr const char* kProjectFileName = "muster.toml";

struct ConfigLocations {
  std::string start_directory;  // where the search for muster.toml starts (absolute)
  std::string user_path;        // the user's config.toml
  std::string allow_dir;        // the records of allowed project files (trust.h); "" = none allowed
};

// The locations for this process: the working directory, XDG_CONFIG_HOME or HOME, XDG_STATE_HOME or HOME.
ConfigLocations default_locations();

// The user's config path from XDG_CONFIG_HOME (used when absolute) or the home directory.
std::string user_config_path(const char* xdg_config_home, const std::string& home);

// The project file at `path` alone, read and checked as load_config does (an error saying why when it would be
// ignored), for `muster config allow`.
Result<ConfigFile> read_project_file(const std::string& path, uint32_t uid);

// Reads the files at `where` (each optional). `uid` is the user whose files are trusted (besides root's).
// A project file's `allowed` says whether where.allow_dir records its content.
Result<ConfigSet> load_config(const ConfigLocations& where, uint32_t uid);

}  // namespace muster::config
