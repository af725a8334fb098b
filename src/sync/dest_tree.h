// Safe file operations under a sync destination root. Every path is relative to the root and is resolved one
// component at a time with openat(O_NOFOLLOW | O_DIRECTORY), so no operation can leave the root through a
// symbolic link or `..` that is already on the node (a destination `a -> /etc` makes `a/x` an error, never a
// write into /etc). Paths must pass is_safe_relative_path (sync/manifest.h); others are errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <string_view>

#include "posix/dir.h"
#include "util/result.h"

namespace muster::sync {

// The lock file of a link's temporary is that temporary's name plus this (itself a temporary name).
inline constexpr std::string_view kTempLockSuffix = ".lock";

// A directory of the destination (an open fd) and the last component of a path inside it.
struct ParentDir {
  posix::Dir dir;
  std::string name;
};

class DestTree {
 public:
  // Opens `root` (absolute), creating it (mode 0700, private until the commit sets `root_mode`) and its missing
  // parents (the source root's permission bits `root_mode` plus the owner's rwx; 0700 when 0, unknown) unless
  // `create` is false.
  static Result<DestTree> open(const std::string& root, bool create, uint32_t root_mode = 0);

  const std::string& root() const { return path_; }
  const posix::Dir& dir() const { return root_; }

  // The parent directory of `path`; missing intermediate directories are created (mode 0700 until the commit sets
  // the source's) when `create_missing`, else an error.
  Result<ParentDir> parent_of(std::string_view path, bool create_missing) const;

  // Deletes a file, symlink or empty directory. A missing path is fine; a non-empty directory is left in place
  // (it still holds excluded files) and reported as false.
  Result<bool> remove(std::string_view path) const;
  // Makes a directory (0700 until set_meta gives it its final mode); an existing directory is fine.
  Result<void> make_dir(std::string_view path) const;
  // Sets the permission bits and the modification time of `path`, never through a symbolic link, also when
  // `path` is swapped for one meanwhile (posix::Dir::set_meta acts on a descriptor of the entry). Returns the
  // metadata of the entry it changed, afterwards (from that descriptor).
  Result<posix::FileStat> set_meta(std::string_view path, uint32_t mode, int64_t mtime_ns) const;
  // Gives the owner write permission on the directory that holds `path` (the root for a top-level path) when it
  // lacks it and this process owns the directory, so that a read-only directory of the source (0555) can be
  // updated by its non-root owner, as rsync does. Returns the directory (relative path, "" for the root) and
  // the mode it had, or nullopt when nothing changed.
  std::optional<std::pair<std::string, uint32_t>> unlock_parent_of(std::string_view path) const;
  // Whether open() made the root (it is then 0700 until the commit gives it the source root's mode).
  bool created_root() const { return created_root_; }
  // The root's permission bits (the source root's, at the commit of a root this sync made).
  Result<void> set_root_mode(uint32_t mode) const;
  // An existing root of this user's gets the source root's permission bits at once (best effort; not one this
  // sync made, which stays private until the commit): before anything is written, so a file never lands in a
  // root wider than its source's, and a sync with nothing else to do still gives the root its mode.
  void give_existing_root(uint32_t mode) const;
  // Sets the permission bits of the directory `dir` ("" for the root) back to `mode`.
  Result<void> relock(const std::string& dir, uint32_t mode) const;
  // Creates or replaces the symlink `path` with text `target` (through a temporary name and rename). Where the
  // link points is the head's business: nothing here ever follows one.
  Result<void> make_symlink(std::string_view path, std::string_view target, std::string_view temp_suffix) const;
  // Makes `path` another name of the regular file `target` (a hard link, through a temporary name and rename;
  // nothing to do when `path` is that file already).
  // Both links' temporaries `.<name>.muster-tmp-<temp_suffix>` (the suffix names the writer) are claimed by a
  // lock file `<temporary>.lock` that the writer creates and flocks first and removes last: a hard link shares
  // its target's inode and old mtime, and a symbolic link cannot be locked, so neither shows by itself that a
  // live writer is about to rename it.
  Result<void> make_hardlink(std::string_view path, std::string_view target, std::string_view temp_suffix) const;
  // Removes the leftover temporary `path` of an interrupted sync, unless a live writer holds it: a writer keeps
  // an exclusive flock on its temporary file while it writes (on a link's temporary's lock file while it lives),
  // and the kernel drops it when that writer dies. A temporary younger than `grace_ns` (by mtime) is kept too (a
  // writer between creating and locking it). Returns whether it was removed.
  Result<bool> remove_stale_temp(std::string_view path, int64_t now_ns, int64_t grace_ns) const;

 private:
  DestTree(std::string root, posix::Dir dir) : path_(std::move(root)), root_(std::move(dir)) {}
  std::string path_;
  posix::Dir root_;
  bool created_root_ = false;
};

// The `a/b` of a destination path for messages: "<root>/<path>".
std::string dest_display(const std::string& root, std::string_view path);

}  // namespace muster::sync
