#include "head/relay_tree.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace muster::head {
namespace {

size_t children_of(const RelayTree& tree, size_t parent) {
  return static_cast<size_t>(std::count(tree.parent.begin(), tree.parent.end(), parent));
}

size_t max_depth(const RelayTree& tree) {
  size_t deepest = 0;
  for (size_t node = 0; node < tree.size(); ++node) deepest = std::max(deepest, tree.depth(node));
  return deepest;
}

// Every property the pool and the agents rely on: nobody starts more than `fanout` agents, parents come before
// their children, and each subtree is the contiguous run [node, end) holding exactly the node's descendants.
void check_shape(const RelayTree& tree, size_t fanout) {
  ASSERT_EQ(tree.end.size(), tree.size());
  EXPECT_LE(children_of(tree, RelayTree::kHead), fanout);
  for (size_t node = 0; node < tree.size(); ++node) {
    EXPECT_LE(children_of(tree, node), fanout) << "node " << node;
    if (tree.parent[node] != RelayTree::kHead) {
      EXPECT_LT(tree.parent[node], node);
    }
    ASSERT_GT(tree.end[node], node);
    ASSERT_LE(tree.end[node], tree.size());
    for (size_t other = 0; other < tree.size(); ++other) {
      bool descends = false;
      for (size_t at = other; tree.parent[at] != RelayTree::kHead; at = tree.parent[at]) {
        if (tree.parent[at] == node) descends = true;
      }
      EXPECT_EQ(tree.below(other, node), descends) << "node " << other << " under " << node;
    }
  }
}

TEST(RelayTree, StarWhenTheFanoutCoversEveryNode) {
  for (size_t fanout : {0u, 8u, 100u}) {
    auto tree = make_relay_tree(8, fanout);
    EXPECT_EQ(children_of(tree, RelayTree::kHead), 8u);
    EXPECT_EQ(max_depth(tree), 1u);
  }
  EXPECT_EQ(make_relay_tree(0, 2).size(), 0u);
}

TEST(RelayTree, FanoutTwoOnSevenNodesHasInnerNodes) {
  auto tree = make_relay_tree(7, 2);
  check_shape(tree, 2);
  EXPECT_EQ(tree.parent, (std::vector<size_t>{RelayTree::kHead, 0, 1, 0, RelayTree::kHead, 4, 4}));
  EXPECT_EQ(max_depth(tree), 3u);
}

TEST(RelayTree, FanoutOneIsAChain) {
  auto tree = make_relay_tree(5, 1);
  check_shape(tree, 1);
  for (size_t node = 1; node < 5; ++node) EXPECT_EQ(tree.parent[node], node - 1);
  EXPECT_EQ(max_depth(tree), 5u);
}

TEST(RelayTree, BalancedAndShallowAtScale) {
  auto wide = make_relay_tree(64, 32);  // each of the head's 32 nodes starts one more
  check_shape(wide, 32);
  for (size_t node = 0; node < 64; node += 2) EXPECT_EQ(children_of(wide, node), 1u);
  EXPECT_EQ(max_depth(wide), 2u);
  auto big = make_relay_tree(1024, 32);
  EXPECT_EQ(children_of(big, RelayTree::kHead), 32u);
  EXPECT_EQ(max_depth(big), 2u);
  for (size_t node = 0; node < big.size(); ++node) EXPECT_LE(children_of(big, node), 32u);
  auto narrow = make_relay_tree(100, 3);
  check_shape(narrow, 3);
  EXPECT_LE(max_depth(narrow), 5u);  // 3 + 9 + 27 + 81 > 100
}

}  // namespace
}  // namespace muster::head
