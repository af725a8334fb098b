// Which settings of a project file (muster.toml) need the user's explicit allow, and the record of those allows.
// A muster.toml comes with a cloned repository or sits in a parent directory: it is the user's own file yet not
// necessarily the user's choice, and some keys run commands (ssh's ProxyCommand through ssh-option, a Match exec
// in an ssh-config, the python doctor runs, container options) or send the job, its tokens or files elsewhere
// (hosts, master-addr, sync's destination). As direnv does for .envrc, a project file that sets any of them is
// used only once `muster config allow` recorded its path with the SHA-256 of its content in the user's private
// state ($XDG_STATE_HOME/muster/allowed, default ~/.local/state/muster/allowed, 0700); a changed file asks again.
// The user's own ~/.config/muster/config.toml needs no allow. Keys every command may take harmlessly (workers
// per node, timeouts, log prefixes) need none either.
#pragma once

#include <string>
#include <string_view>

#include "config/apply.h"
#include "config/settings.h"
#include "util/result.h"

namespace muster::config {

// Why `key` (an option's long name, in any table) needs an allow in a project file; nullptr when it does not.
const char* why_key_needs_allow(std::string_view key);

// The directory of the allow records: $XDG_STATE_HOME/muster/allowed (when absolute), else the home directory's
// .local/state/muster/allowed; "" when neither is known.
std::string allow_dir(const char* xdg_state_home, const std::string& home);
std::string default_allow_dir();

// The SHA-256 of a file's content, as the allow records keep it.
std::string content_digest(std::string_view text);

// Whether `dir` records an allow of the file at `path` with this digest (a record others could write is no
// record).
bool is_allowed(const std::string& dir, const std::string& path, const std::string& digest);
// Records the allow (the directory made 0700, refused when others could write it) and drops the records of the
// same path with another digest.
Result<void> record_allow(const std::string& dir, const std::string& path, const std::string& digest);
// Drops every record of `path`; returns how many there were.
Result<int> revoke_allows(const std::string& dir, const std::string& path);

// `muster config allow [FILE]` and `deny`: records (or drops) the allow of the project file at `path` (absolute)
// as it is now, read and checked as load_config reads it; returns the line that says what was done.
Result<std::string> allow_project_file(const std::string& path);
Result<std::string> deny_project_file(const std::string& path);

// An error naming every setting in force (`applied`) that comes from a project file not allowed and needs an
// allow (file:line, key, why), with how to allow it; success when there is none.
Result<void> check_allowed(const AppliedSettings& applied, const ConfigSet& config);

// "using /p/muster.toml: hosts, nproc-per-node" when settings of a project file are in force, else "": what a
// command says before it runs, so that a file in a parent directory never changes it unnoticed.
std::string project_settings_note(const AppliedSettings& applied, const ConfigSet& config);

// The settings of `file` that need an allow, as "key (line N)" items joined by ", "; "" when none.
std::string keys_needing_allow(const ConfigFile& file);

}  // namespace muster::config
