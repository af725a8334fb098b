// A bounded content hash of a directory tree, so doctor can tell whether every node sees the same code and
// data under a path (and name the files that differ). Reads files; never follows symbolic links.
//
// The walk visits entries in byte order of their names, depth first, skipping `.git` and `__pycache__`
// directories and doctor's own marker files (kDoctorMarkerPrefix: the shared-filesystem test writes one into a
// path while other nodes may be hashing it); only regular files count (symbolic links, sockets, ... are ignored). Each file's content
// is hashed with XXH3-64; the tree hash is XXH3-64 over (relative path, size, file hash) of every file in
// walk order, so it depends on names, sizes and contents, not on times, owners or modes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace muster::doctor {

// The names doctor gives its temporary marker files (node/cross_checks.h), which no tree hash counts.
inline constexpr std::string_view kDoctorMarkerPrefix = ".muster-doctor-";

struct TreeHashLimits {
  int64_t max_files = 20000;
  int64_t max_bytes = int64_t{2} << 30;    // 2 GiB
  int64_t max_named_files = 2000;          // per-file hashes are kept only for trees this small
  bool operator==(const TreeHashLimits&) const = default;
};

struct TreeHash {
  int64_t files = 0;         // regular files seen (stops counting once a limit is passed)
  int64_t bytes = 0;         // their total size
  bool too_big = false;      // a limit was passed: `hash` and `file_hashes` are empty
  std::string hash;          // 16 lowercase hex digits; empty when too big
  std::map<std::string, std::string> file_hashes;  // relative path -> hash, when files <= max_named_files
};

// The hash of the tree at `root` (a directory, or a single file whose relative path is its name).
// Unreadable files and directories are hashed as the marker "unreadable" rather than failing the walk.
TreeHash hash_tree(const std::string& root, const TreeHashLimits& limits = {});

}  // namespace muster::doctor
