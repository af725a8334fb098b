// The content manifest of a directory tree: what `muster sync` compares between the source and every
// destination. One Entry per directory, regular file and symbolic link under the root (other file types
// are skipped); paths are relative to the root, '/'-separated, never empty, never with a '.' or '..'
// component or a leading '/'. Entries are sorted by path (byte order), so a directory precedes its contents.
//
// scan_tree() walks the tree without following symbolic links (the root itself may be one), applies the
// exclude rules, and hashes regular files with XXH3-64, asking the HashCache first so that unchanged files
// are not read again. It removes nothing; leftovers of an interrupted sync (kTempMarker names) are listed in
// `stale_temps` instead of entries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::sync {

class ExcludeRules;
class HashCache;

enum class EntryKind : uint8_t { directory = 1, file = 2, symlink = 3 };

struct Entry {
  std::string path;       // relative to the root
  EntryKind kind = EntryKind::file;
  uint32_t mode = 0;      // permission bits (st_mode & 07777)
  uint64_t size = 0;      // files: bytes; symlinks: target length; directories: 0
  int64_t mtime_ns = 0;   // files and directories (symlink times are not kept)
  uint64_t hash = 0;      // files: XXH3-64 of the content; others: 0
  std::string target;     // symlinks: the link's text, as readlink returns it
  bool operator==(const Entry&) const = default;
};

struct Manifest {
  std::vector<Entry> entries;          // sorted by path
  std::vector<std::string> stale_temps;  // relative paths of leftover temporary files (see kTempMarker)
  uint64_t hashed_bytes = 0;           // bytes actually read to hash (0 when the cache knew every file)
  bool operator==(const Manifest&) const = default;
};

// Temporary files of the receiver are named `.<name>.muster-tmp-<suffix>` in the file's own directory.
inline constexpr std::string_view kTempMarker = ".muster-tmp-";
bool is_temp_name(std::string_view file_name);

// Walks `root`. A missing root is an empty manifest (a first sync); a root that is not a directory, or an
// unreadable directory inside it, is an error naming the path. `cache` may be null.
Result<Manifest> scan_tree(const std::string& root, const ExcludeRules& rules, HashCache* cache);

// XXH3-64 of a whole file's content (for tests and verification); an error names the file.
Result<uint64_t> hash_file(const std::string& path);

// A relative path is safe when it is non-empty, relative, and has no empty, '.' or '..' component.
bool is_safe_relative_path(std::string_view path);
// A symlink at `link_path` (relative to the root) with text `target` is safe when the target is relative and,
// resolved lexically from the link's directory, never leaves the root (`a/b -> ../c` is fine, `a -> ../x`
// and `/etc/passwd` are not).
bool is_safe_symlink(std::string_view link_path, std::string_view target);

// Wire form of a manifest (entries only) for the agent protocol: a sequence of records, each
//   u8 kind | str path | u32 mode | u64 size | i64 mtime_ns | u64 hash | str target
// in the protocol's field encoding (protocol/wire.h). decode_manifest rejects unsafe paths/targets, an
// unknown kind, unsorted or duplicate paths, and trailing garbage.
//
// `targets`: the head decodes a DESTINATION's manifest with SymlinkTargets::any, since a node may already hold
// a link that leaves the tree (e.g. `lib -> /usr/lib`); the plan then replaces or deletes it, and the node
// refuses to create an unsafe link anyway. Everything the head sends to a node keeps the default.
enum class SymlinkTargets : uint8_t { must_be_safe, any };
std::string encode_entries(const std::vector<Entry>& entries);
Result<std::vector<Entry>> decode_entries(std::string_view bytes,
                                          SymlinkTargets targets = SymlinkTargets::must_be_safe);

}  // namespace muster::sync
