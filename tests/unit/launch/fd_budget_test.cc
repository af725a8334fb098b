#include "launch/fd_budget.h"

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

TEST(FdBudget, TheHeadDoesNotNeedAFilePerRank) {
  // 128 nodes x 8 ranks: three pipes per node, a bounded number of rank logs: far below a hard limit of 4096.
  EXPECT_LT(head_descriptors_needed(128, 1024), 1024u);
  EXPECT_EQ(head_descriptors_needed(128, 1024), head_descriptors_needed(128, 100'000));
  EXPECT_TRUE(check_head_descriptors(128, 1024, 4096, 4096));
}

TEST(FdBudget, HeadRefusalNamesTheLimitAndTheFix) {
  auto refused = check_head_descriptors(1000, 8000, 1024, 1024);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::usage);
  EXPECT_NE(refused.error().message.find("RLIMIT_NOFILE"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("limits.conf"), std::string::npos) << refused.error().message;
  auto soft_only = check_head_descriptors(1000, 8000, 1024, 65536);
  ASSERT_FALSE(soft_only);
  EXPECT_NE(soft_only.error().message.find("ulimit -n 65536"), std::string::npos) << soft_only.error().message;
}

TEST(FdBudget, NodeNeedsTwoPipesPerWorker) {
  EXPECT_EQ(agent_descriptors_needed(1000), 2032u);
  EXPECT_TRUE(check_node_descriptors("node1", 1000, 4096));
  EXPECT_TRUE(check_node_descriptors("node1", 1000, 0));  // not reported: nothing to check
  auto refused = check_node_descriptors("node7", 1000, 1024);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("node7: 1000 workers need about 2032 open files"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace muster::launch
