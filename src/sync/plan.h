// What a sync must do to one destination: the difference between the source manifest and the destination's.
// Pure: no I/O.
//
// A file is sent when the destination lacks it, has another kind of entry there, or its size or hash differ.
// A file with the same content whose mode or mtime differ is only touched (metadata). A symlink is (re)made
// when missing or its target differs. A directory is made when missing, and its mode/mtime are set when they
// differ (after its contents changed). With `delete_extraneous`, destination entries that the source lacks
// are deleted, deepest first; without it they are left alone. An entry of another kind in the way of a source
// entry is always deleted first (a file where the source has a directory, ...).
//
// Content moves once: a file whose content the node already holds at a path the sync leaves alone, or that
// another file of this sync brings, is a `copy` made on the node from there (a renamed file, two identical
// files: nothing or one transfer). A hard link (another name of a file, manifest.h) is made on the node when
// the destination's name is not already a link to that file (or the file is being replaced).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sync/manifest.h"

namespace muster::sync {

struct SyncPlan {
  std::vector<std::string> remove;  // destination paths to delete, children before their directory
  std::vector<Entry> make_dirs;     // missing directories, parents first
  std::vector<Entry> send;          // files whose content must move, in source order
  std::vector<Entry> copies;        // kind copy: files made on the node from content it holds at `target`
  std::vector<Entry> hardlinks;     // kind hardlink: names to (re)link to the file at `target`
  std::vector<Entry> links;         // symlinks to create or replace
  std::vector<Entry> touch;         // files with the right content but another mode or mtime
  std::vector<Entry> dir_meta;      // every source directory whose mode/mtime must be set (incl. new ones),
                                    // deepest first, applied last (writing into a directory changes its mtime)
  uint64_t send_bytes = 0;          // sum of send[i].size

  bool empty() const {
    return remove.empty() && make_dirs.empty() && send.empty() && copies.empty() && hardlinks.empty() &&
           links.empty() && touch.empty() && dir_meta.empty();
  }
};

SyncPlan plan_sync(const Manifest& source, const Manifest& destination, bool delete_extraneous);

// 16 bytes (XXH3-128) over what plan_sync compares of each entry, in path order: kind and path; a file's mode,
// size, mtime and hash; a hard link's or symlink's target; a directory's mode and mtime. Equal digests of a source
// and a destination manifest mean an empty plan, so a node whose digest matches the head's needs nothing and need
// not send its manifest (protocol SyncDigest). Unequal ones say nothing: the manifests are compared then.
std::string plan_digest(const std::vector<Entry>& entries);

}  // namespace muster::sync
