// The shape of the launch tree (docs/agent-protocol.md section 9): which node starts which node's agent when
// the head connects to at most `fanout` nodes. Like Slurm's TreeWidth: the head takes up to `fanout` nodes, the
// rest are split into that many runs of near-equal size, each run hung under one of them, and so on down, so
// the tree is as shallow as the fanout allows and every subtree is one contiguous run of node indices (its Relay
// masks stay short and one range check tells whether a frame goes into it). Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace muster::head {

struct RelayTree {
  static constexpr size_t kHead = SIZE_MAX;
  std::vector<size_t> parent;  // the node that starts node i's agent; kHead: the head does
  std::vector<size_t> end;     // node i and the nodes below it are [i, end[i])

  size_t size() const { return parent.size(); }
  size_t depth(size_t node) const;  // 1 for a node the head starts
  bool below(size_t node, size_t ancestor) const { return node > ancestor && node < end[ancestor]; }
};

// `fanout` 0, or one at least `nodes`: the star (the head starts every agent).
RelayTree make_relay_tree(size_t nodes, size_t fanout);

}  // namespace muster::head
