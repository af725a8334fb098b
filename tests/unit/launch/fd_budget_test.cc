#include "launch/fd_budget.h"

#include <numeric>

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

TEST(FdBudget, TheHeadDoesNotNeedAFilePerRank) {
  // 128 nodes x 8 ranks in a star: three pipes per node, a bounded number of rank logs: far below 4096.
  EXPECT_LT(head_descriptors_needed(128, 1024), 1024u);
  EXPECT_EQ(head_descriptors_needed(128, 1024), head_descriptors_needed(128, 100'000));
  EXPECT_TRUE(check_head_descriptors(128, 128, 1024, 4096, 4096));
}

TEST(FdBudget, TheHeadConnectsToAtMostTheFanoutThroughTheTree) {
  // 300 nodes under Debian's hard limit of 1,024: a star needs 3 x 300 + logs + base > 1,024, the launch tree
  // (fanout 32) only 3 x 32 + logs + base.
  auto tree = head::make_relay_tree(300, 32);
  EXPECT_EQ(head_connections(tree), 32u);
  EXPECT_TRUE(check_head_descriptors(300, head_connections(tree), 2400, 1024, 1024));
  auto star = head::make_relay_tree(300, 0);
  EXPECT_EQ(head_connections(star), 300u);
  EXPECT_FALSE(check_head_descriptors(300, head_connections(star), 2400, 1024, 1024));
  // Whatever the node count: 4,096 nodes still need 32 connections.
  EXPECT_EQ(head_connections(head::make_relay_tree(4096, 32)), 32u);
  EXPECT_EQ(head_descriptors_needed(head_connections(head::make_relay_tree(4096, 32)), 32768),
            head_descriptors_needed(32, 64));
}

TEST(FdBudget, EveryNodeBelowTheHeadIsSomeRelaysChild) {
  for (size_t nodes : {1u, 7u, 33u, 300u, 1024u}) {
    for (size_t fanout : {0u, 1u, 2u, 32u}) {
      auto tree = head::make_relay_tree(nodes, fanout);
      auto children = relay_children(tree);
      ASSERT_EQ(children.size(), nodes);
      EXPECT_EQ(head_connections(tree) + std::accumulate(children.begin(), children.end(), size_t{0}), nodes)
          << nodes << " nodes, fanout " << fanout;
      size_t most = *std::max_element(children.begin(), children.end());
      EXPECT_LE(most, fanout == 0 ? 0 : fanout) << nodes << " nodes, fanout " << fanout;
    }
  }
  // --fanout 2 over 7 nodes: the head starts 0 and 4; 0 starts 1 and 3, 1 starts 2; 4 starts 5 and 6.
  auto children = relay_children(head::make_relay_tree(7, 2));
  EXPECT_EQ(children, (std::vector<size_t>{2, 1, 0, 0, 2, 0, 0}));
}

TEST(FdBudget, HeadRefusalNamesTheLimitAndTheFix) {
  auto refused = check_head_descriptors(1000, 1000, 8000, 1024, 1024);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::usage);
  EXPECT_NE(refused.error().message.find("RLIMIT_NOFILE"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("limits.conf"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("3 per node"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("fewer nodes"), std::string::npos) << refused.error().message;
  auto soft_only = check_head_descriptors(1000, 1000, 8000, 1024, 65536);
  ASSERT_FALSE(soft_only);
  EXPECT_NE(soft_only.error().message.find("ulimit -n 65536"), std::string::npos) << soft_only.error().message;
  // Through the tree: the connections the head holds, and a smaller fanout as the other way out.
  auto tree = check_head_descriptors(1000, 32, 8000, 128, 128);
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().message.find("a launch on 1000 nodes needs about 224 open files"), std::string::npos)
      << tree.error().message;
  EXPECT_NE(tree.error().message.find("3 for each of the 32 nodes it connects to itself"), std::string::npos)
      << tree.error().message;
  EXPECT_NE(tree.error().message.find("--fanout"), std::string::npos) << tree.error().message;
}

TEST(FdBudget, NodeNeedsTwoPipesPerWorker) {
  EXPECT_EQ(agent_descriptors_needed(1000), 2032u);
  EXPECT_TRUE(check_node_descriptors("node1", 1000, 0, 4096));
  EXPECT_TRUE(check_node_descriptors("node1", 1000, 0, 0));  // not reported: nothing to check
  auto refused = check_node_descriptors("node7", 1000, 0, 1024);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("node7: 1000 workers need about 2032 open files"), std::string::npos)
      << refused.error().message;
}

TEST(FdBudget, ARelayNodeNeedsThreeMorePerChild) {
  // 8 workers and 32 children in the tree: 16 + 96 + 32.
  EXPECT_EQ(agent_descriptors_needed(8, 32), 144u);
  EXPECT_TRUE(check_node_descriptors("node1", 8, 0, 128));
  auto refused = check_node_descriptors("node1", 8, 32, 128);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("node1: 8 workers and the 32 agents it starts below it in the launch tree "
                                         "need about 144 open files"),
            std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("--fanout"), std::string::npos) << refused.error().message;
}

}  // namespace
}  // namespace muster::launch
