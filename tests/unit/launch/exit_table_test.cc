#include "launch/exit_table.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

// Two nodes: node1 has ranks 0-1, node2 has ranks 2-4.
cluster::RankPlan uneven_plan() {
  cluster::NodeSlots a{cluster::Host{.name = "node1"}, {0, 1}};
  cluster::NodeSlots b{cluster::Host{.name = "node2"}, {0, 1, 2}};
  return cluster::make_rank_plan({a, b});
}

cluster::RankPlan plan_of(int nodes, int ranks_per_node) {
  std::vector<cluster::NodeSlots> slots;
  std::vector<int> devices(static_cast<size_t>(ranks_per_node));
  for (int i = 0; i < ranks_per_node; ++i) devices[static_cast<size_t>(i)] = i;
  for (int i = 1; i <= nodes; ++i) slots.push_back({cluster::Host{.name = "node" + std::to_string(i)}, devices});
  return cluster::make_rank_plan(slots);
}

size_t lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(ExitTable, SmallJobsGetARowPerRankAndTheRootCauseMarked) {
  auto plan = uneven_plan();
  Gang gang(plan);
  gang.ended(3, RankPhase::signaled, 9, "killed by SIGKILL", 10);
  gang.tearing_down();
  for (int rank : {0, 1, 2, 4}) gang.ended(rank, RankPhase::signaled, 15, "killed by SIGTERM", 11);
  std::string table = format_exit_table(gang, plan);
  EXPECT_NE(table.find("killed by SIGKILL  <- root cause"), std::string::npos) << table;
  EXPECT_NE(table.find("node2"), std::string::npos);
  EXPECT_EQ(lines(table), 6u) << table;  // header + 5 ranks
}

TEST(ExitTable, LargeJobsFoldRanksThatEndedAlike) {
  auto plan = plan_of(8, 8);  // 64 ranks
  Gang gang(plan);
  gang.ended(17, RankPhase::exited, 1, "exit 1", 1);
  gang.tearing_down();
  for (int rank = 0; rank < 64; ++rank) gang.ended(rank, RankPhase::signaled, 15, "killed by SIGTERM", 2);
  std::string table = format_exit_table(gang, plan);
  EXPECT_EQ(lines(table), 3u) << table;  // header, the root cause's row, one folded line
  EXPECT_NE(table.find("   17  node3                    1  exited           exit 1  <- root cause\n"),
            std::string::npos) << table;
  EXPECT_NE(table.find("  ranks 0-16,18-63 (63) on node[1-8] (8): killed by SIGTERM (stopped by muster)\n"),
            std::string::npos) << table;
}

TEST(ExitTable, RanksThatEndedByThemselvesComeFirst) {
  auto plan = plan_of(10, 4);  // 40 ranks
  Gang gang(plan);
  gang.ended(5, RankPhase::exited, 2, "exit 2", 1);
  gang.ended(6, RankPhase::exited, 2, "exit 2", 1);  // before the teardown: not by muster
  gang.tearing_down();
  for (int rank = 0; rank < 40; ++rank) gang.ended(rank, RankPhase::signaled, 15, "killed by SIGTERM", 2);
  gang.node_lost(9, "node10 lost", 3);
  std::string table = format_exit_table(gang, plan, 8);
  auto exit2 = table.find("  rank 6 on node2: exit 2\n");
  auto sigterm = table.find("ranks 0-4,7-39 (38) on node[1-10] (10): killed by SIGTERM (stopped by muster)");
  ASSERT_NE(exit2, std::string::npos) << table;
  ASSERT_NE(sigterm, std::string::npos) << table;
  EXPECT_LT(exit2, sigterm);
}

TEST(ExitTable, ManyKindsOfEndingAreCounted) {
  auto plan = plan_of(10, 4);
  Gang gang(plan);
  for (int rank = 0; rank < 40; ++rank) gang.ended(rank, RankPhase::exited, rank + 1, "exit " + std::to_string(rank + 1), 1);
  std::string table = format_exit_table(gang, plan, 8);
  EXPECT_EQ(lines(table), 1u + 1u + 8u + 1u) << table;  // header, root cause, 8 kinds, the count
  EXPECT_NE(table.find("... and 31 more ranks that ended in 31 other ways"), std::string::npos) << table;
}

}  // namespace
}  // namespace muster::launch
