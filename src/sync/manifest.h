// The content manifest of a directory tree: what `muster sync` compares between the source and every
// destination. One Entry per directory, regular file and symbolic link under the root (other file types
// are skipped); paths are relative to the root, '/'-separated, never empty, never with a '.' or '..'
// component or a leading '/'. Entries are sorted by path (byte order), so a directory precedes its contents.
// A regular file with several names in the tree (hard links) is one `file` entry, at its first name in path
// order, and one `hardlink` entry for every other name, whose `target` is that first name.
//
// scan_tree() walks the tree without following symbolic links (the root itself may be one; so may the links
// the caller names in `follow`), applies the exclude rules, and hashes regular files with XXH3-64, asking the
// HashCache first so that unchanged files are not read again (and each inode once). It removes nothing;
// leftovers of an interrupted sync (kTempMarker names) are listed in `stale_temps` instead of entries. A
// problem (an unreadable directory or file) does not stop the walk: it fails at the end, naming every one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::sync {

class ExcludeRules;
class HashCache;

// `copy` never comes from a scan: it is what a plan asks of a node that already holds the content (sync/plan.h).
enum class EntryKind : uint8_t { directory = 1, file = 2, symlink = 3, hardlink = 4, copy = 5 };

struct Entry {
  std::string path;       // relative to the root
  EntryKind kind = EntryKind::file;
  uint32_t mode = 0;      // permission bits (st_mode & 07777)
  uint64_t size = 0;      // files, hard links, copies: bytes; symlinks: target length; directories: 0
  int64_t mtime_ns = 0;   // files and directories (symlink times are not kept)
  uint64_t hash = 0;      // files, hard links, copies: XXH3-64 of the content; others: 0
  // symlinks: the link's text, as readlink returns it; hardlink: the path of the file this is another name of
  // (earlier in path order); copy: a path on the node that holds this content.
  std::string target;
  bool operator==(const Entry&) const = default;
};

struct Manifest {
  std::vector<Entry> entries;          // sorted by path
  std::vector<std::string> stale_temps;  // relative paths of leftover temporary files (see kTempMarker)
  uint64_t hashed_bytes = 0;           // bytes actually read to hash (0 when the cache knew every file)
  uint32_t root_mode = 0;              // the root directory's permission bits (what the nodes' root gets)
  bool operator==(const Manifest&) const = default;
};

// Temporary files of the receiver are named `.<name>.muster-tmp-<suffix>` in the file's own directory.
inline constexpr std::string_view kTempMarker = ".muster-tmp-";
bool is_temp_name(std::string_view file_name);

struct ScanOptions {
  HashCache* cache = nullptr;
  // Paths of symbolic links (relative to the root) to replace by what they point to (a directory is walked, a
  // file read); a link that points to nothing, or a directory that holds itself, is a problem.
  const std::vector<std::string>* follow = nullptr;
};

// Walks `root`. A missing root is an empty manifest (a first sync); a root that is not a directory, or any
// problem inside it, is an error naming every path. `cache` may be null.
Result<Manifest> scan_tree(const std::string& root, const ExcludeRules& rules, HashCache* cache);
Result<Manifest> scan_tree(const std::string& root, const ExcludeRules& rules, const ScanOptions& options);

// XXH3-64 of a whole file's content (for tests and verification); an error names the file.
Result<uint64_t> hash_file(const std::string& path);

// A relative path is safe when it is non-empty, relative, and has no empty, '.' or '..' component.
bool is_safe_relative_path(std::string_view path);

// Wire form of a manifest (entries only) for the agent protocol: a sequence of records, each
//   u8 kind | str path | u32 mode | u64 size | i64 mtime_ns | u64 hash | str target
// in the protocol's field encoding (protocol/wire.h). decode_entries rejects unsafe paths, a hardlink or copy
// whose target is no safe relative path, a hardlink whose target does not come before it, an unknown kind,
// unsorted or duplicate paths, and trailing garbage. A symlink's target may be anything but empty (where it
// points is the head's decision, sync/links.h; a node never follows a link when it writes).
std::string encode_entries(const std::vector<Entry>& entries);
Result<std::vector<Entry>> decode_entries(std::string_view bytes);

}  // namespace muster::sync
