#include "head/relay_tree.h"

namespace muster::head {
namespace {

// Hangs the nodes [first, last) under `parent`: all of them when they fit in `fanout`, else `fanout` runs of
// near-equal size whose first nodes are `parent`'s children and whose rest hang under those.
void hang(RelayTree& tree, size_t first, size_t last, size_t parent, size_t fanout) {
  size_t count = last - first;
  if (count <= fanout) {
    for (size_t node = first; node < last; ++node) {
      tree.parent[node] = parent;
      tree.end[node] = node + 1;
    }
    return;
  }
  size_t base = count / fanout, extra = count % fanout;
  size_t at = first;
  for (size_t run = 0; run < fanout; ++run) {
    size_t size = base + (run < extra ? 1 : 0);
    tree.parent[at] = parent;
    tree.end[at] = at + size;
    hang(tree, at + 1, at + size, at, fanout);
    at += size;
  }
}

}  // namespace

size_t RelayTree::depth(size_t node) const {
  size_t depth = 1;
  for (size_t at = node; parent[at] != kHead; at = parent[at]) ++depth;
  return depth;
}

RelayTree make_relay_tree(size_t nodes, size_t fanout) {
  RelayTree tree;
  tree.parent.assign(nodes, RelayTree::kHead);
  tree.end.resize(nodes);
  if (fanout == 0 || fanout >= nodes) {
    for (size_t node = 0; node < nodes; ++node) tree.end[node] = node + 1;
    return tree;
  }
  hang(tree, 0, nodes, RelayTree::kHead, fanout);
  return tree;
}

}  // namespace muster::head
