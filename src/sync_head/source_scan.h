// The head's scan of a sync's source, with what its links that leave the tree become (`--links`): the manifest
// that goes to the nodes, and what happened to those links, for the summary. sync/links.h says which links
// leave and which would change their meaning at another path.
//
//   ask (no --links given): links that leave the tree are kept as links when the copy is at the source's own
//        path; when it is elsewhere (--to) and some would point somewhere else there, the scan fails listing
//        every one of them (not just the first), with the choice to make.
//   keep: every link is copied as the link it is (rsync's default).
//   copy-target: every link that leaves the tree is replaced by what it points to (a file, or a directory walked
//        in turn, whose own links are judged the same way), like rsync's --copy-unsafe-links.
//   skip: links that leave the tree are left out (rsync's --safe-links).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sync/exclude.h"
#include "sync/hash_cache.h"
#include "sync/manifest.h"
#include "util/result.h"

namespace muster::sync_head {

enum class LinkPolicy : uint8_t { ask, keep, copy_target, skip };

// "keep", "copy-target", "skip"; an empty name is `ask`.
Result<LinkPolicy> parse_link_policy(const std::string& name);

struct SourceLinks {
  uint64_t kept_leaving = 0;  // links that leave the tree, copied as links (their targets are node-local)
  // Where those point, as the head resolves them (the directories holding the targets, at most a few): what each
  // node must have too.
  std::vector<std::string> kept_target_dirs;
  uint64_t copied = 0;        // links replaced by what they point to
  uint64_t skipped = 0;       // links left out
};

struct ScannedSource {
  sync::Manifest manifest;
  SourceLinks links;
  std::set<std::string> followed_files;  // paths of files read through a link (copy-target)
};

// `destination` is where the copy goes on the nodes (the same as `source` unless --to).
Result<ScannedSource> scan_source(const std::string& source, const std::string& destination,
                                  const sync::ExcludeRules& rules, sync::HashCache* cache, LinkPolicy policy);

}  // namespace muster::sync_head
