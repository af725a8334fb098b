#include "cluster/node_set.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

using Names = std::vector<std::string>;

TEST(NodeSet, FoldsTheSortedSet) {
  EXPECT_EQ(fold_nodes({"node5", "node2", "node1", "node3"}), "node[1-3,5]");
  EXPECT_EQ(fold_nodes({"node10", "node9", "node1", "node2"}), "node[1-2,9-10]");
  EXPECT_EQ(fold_nodes({"node3", "node3", "node1"}), "node[1,3]");
  EXPECT_EQ(fold_nodes({}), "");
}

TEST(NodeSet, SortsLikeClushPatternsThenNumbers) {
  EXPECT_EQ(sorted_node_set({"node2", "gpu10", "node10", "login", "gpu9", "node1"}),
            (Names{"gpu9", "gpu10", "login", "node1", "node2", "node10"}));
  EXPECT_EQ(fold_nodes({"node2", "gpu10", "node10", "login", "gpu9", "node1"}), "gpu[9-10],login,node[1-2,10]");
}

TEST(NodeSet, KeepsZeroPadding) {
  EXPECT_EQ(fold_nodes({"n08", "n10", "n09", "n01"}), "n[01,08-10]");
  EXPECT_EQ(fold_nodes({"node1", "node01"}), "node[1,01]");
}

TEST(NodeSet, FoldsTheLastNumberOnly) {
  EXPECT_EQ(fold_nodes({"rack1-gpu2", "rack1-gpu1", "rack2-gpu1"}), "rack1-gpu[1-2],rack2-gpu1");
  EXPECT_EQ(fold_nodes({"gpu1.lan", "gpu2.lan"}), "gpu[1-2].lan");
}

TEST(NodeSet, CountsLikeClushHeaders) {
  EXPECT_EQ(counted_nodes({"node5", "node1", "node2", "node3"}), "node[1-3,5] (4)");
  EXPECT_EQ(counted_nodes({"node5"}), "node5");
  EXPECT_EQ(counted_nodes({"node5", "node5"}), "node5");
}

TEST(NodeSet, FoldsNumbers) {
  EXPECT_EQ(fold_numbers({5, 4, 0, 1, 2}), "0-2,4-5");
  EXPECT_EQ(fold_numbers({7}), "7");
  EXPECT_EQ(fold_numbers({3, 3, 1}), "1,3");
  EXPECT_EQ(fold_numbers({}), "");
}

}  // namespace
}  // namespace muster::cluster
