// Directories muster keeps its own state in, under the user's cache directory: ssh control sockets
// (~/.cache/muster/ssh) and the sync hash cache (~/.cache/muster/sync); the bootstrap script applies the same rule
// to ~/.cache/muster/<build-id> on the nodes (transport/ssh_command.h). Whoever can write there can hijack ssh
// connections (a control socket of theirs) or make sync skip changed files (a forged hash cache), so these
// directories must be the user's alone: created 0700, and refused, with the path, the problem and the fix, when
// they belong to another user or are writable by group or others. There is no fallback to a shared place such as
// /tmp, which another user could have created first: without a cache directory there is no cache.
#pragma once

#include <string>

#include "util/result.h"

namespace muster::posix {

// $XDG_CACHE_HOME when it is an absolute path, else the home directory's .cache; empty when neither is known.
std::string user_cache_dir();

// Makes `root`/`below` ("muster/ssh"): `root` (the user's cache directory) is created 0700 if missing; each
// component of `below` is created 0700 if missing, and must be a directory (a link to one is followed) that this
// user owns and that group and others cannot write. Returns the full path. ErrorKind::io naming what is wrong.
Result<std::string> make_private_dir(const std::string& root, const std::string& below);

}  // namespace muster::posix
