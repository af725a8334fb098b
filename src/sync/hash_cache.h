// Remembers file hashes between syncs so an unchanged file is not read again (rsync's quick check, but the
// answer is still a content hash). A file's hash is reused only when its size, mtime, ctime, inode and device
// are all the same as when it was hashed; anything else (an in-place edit that restored the mtime changes
// ctime) means read it again.
//
// The cache lives in one file per synced root: `<cache dir>/<XXH3-64 of the absolute root path>` (the default
// dir is $XDG_CACHE_HOME/muster/sync or ~/.cache/muster/sync; without a home directory there is no cache, never a
// /tmp fallback). load() of a missing, truncated or corrupt file, or of one that is not this user's alone, is an
// empty cache, never an error; save() makes the directory private (0700, refused when another user owns it or
// others can write it: posix/private_dir.h) and writes an O_EXCL|O_NOFOLLOW temporary that it renames into place.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace muster::sync {

struct FileIdentity {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t inode = 0;
  uint64_t device = 0;
  bool operator==(const FileIdentity&) const = default;
};

class HashCache {
 public:
  // The cache file for `root` (made absolute) under `cache_dir` (empty: the default dir); empty when there is no
  // default dir (no home directory): load() of "" is an empty cache and save() does nothing.
  static std::string path_for(const std::string& root, const std::string& cache_dir = "");

  static HashCache load(const std::string& cache_file);
  Result<void> save() const;  // creates the directory; no-op when nothing changed since load

  std::optional<uint64_t> lookup(const std::string& relative_path, const FileIdentity& identity) const;
  void store(const std::string& relative_path, const FileIdentity& identity, uint64_t hash);
  // The identity `relative_path` had when its hash was stored (or loaded); nullopt when there is none.
  std::optional<FileIdentity> known_identity(const std::string& relative_path) const;
  // Drops entries not looked up or stored since load (files that went away), so the cache does not grow.
  void forget_unused();

  size_t size() const { return loaded_.size() + added_.size(); }

 private:
  struct Item {
    FileIdentity identity;
    uint64_t hash = 0;
    mutable bool used = false;  // set by lookup() too, for forget_unused()
  };
  // The entries as loaded, sorted by path (the file's order), and the ones stored since. A scan asks for the paths
  // in nearly that order, so find() first tries the entry after the last one found: a string compare per file,
  // where a hash map hashed every path at load and at every lookup (a third of a no-op re-sync's CPU on a node).
  Item* find(const std::string& path) const;
  // mutable: a lookup marks what it found as used (forget_unused), as Item::used always was.
  mutable std::vector<std::pair<std::string, Item>> loaded_;
  mutable std::map<std::string, Item> added_;
  mutable size_t cursor_ = 0;
  std::string file_;
  bool dirty_ = false;
};

}  // namespace muster::sync
