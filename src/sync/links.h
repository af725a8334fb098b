// Where the symbolic links of a source tree point, resolved the way the kernel will resolve them on a node that
// holds the copy: component by component, through the tree's other links, so that `a/b -> ..` plus
// `a/c -> b/..` is seen to leave the tree (lexically `b/..` would stay in `a`). Pure: works on a manifest.
//
// What this decides is meaning, not the node's safety: a node never follows a link when it writes
// (sync/dest_tree.h), whatever the links it holds point to. A link that leaves the tree is fine when the copy
// is at the source's own path (it resolves on each node as on the head, to the node's own files); when the
// copy goes elsewhere (`--to`), a relative link that climbs out of the tree, or an absolute link into the
// source's directory, would point somewhere else, and the user must choose (`--links`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sync/manifest.h"

namespace muster::sync {

enum class LinkReach : uint8_t {
  inside,            // resolves inside the tree (or dangles there, or loops): the copy means the same
  absolute_inside,   // its own text is an absolute path into the source directory: the same only at that path
  outside,           // its own `..` climbs out of the tree: resolves to what the copy's surroundings hold
  absolute_outside,  // its own text is an absolute path elsewhere: the node's own file at that path
};

// `entries` sorted by path (a manifest's); `root` the source directory's absolute path. A link that reaches
// another link which itself leaves is `inside`: that other link is the one to decide about.
LinkReach link_reach(const std::vector<Entry>& entries, const Entry& link, std::string_view root);

struct LinkSurvey {
  // Links that leave the tree but mean the same on the nodes: absolute links elsewhere, and (at the source's
  // own path) relative links that climb out.
  std::vector<Entry> node_local;
  // Links whose meaning would change at the destination (only when it is another path): relative links that
  // climb out of the tree, absolute links into the source directory.
  std::vector<Entry> moved;
  size_t leaving() const { return node_local.size() + moved.size(); }
};

LinkSurvey survey_links(const std::vector<Entry>& entries, std::string_view root, bool same_path);

}  // namespace muster::sync
