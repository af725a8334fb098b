#include "cluster/rank_plan.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

NodeSlots node(std::string name, std::vector<int> slots, std::string user = "") {
  return NodeSlots{.host = Host{.name = std::move(name), .user = std::move(user)}, .slots = std::move(slots)};
}

TEST(RankPlan, GlobalRanksAreContiguousByNodeWithUnevenSlots) {
  RankPlan plan = make_rank_plan({node("a", {0, 1}), node("b", {0, 1, 2}), node("c", {3})});
  EXPECT_EQ(plan.world_size, 6);
  EXPECT_EQ(plan.max_local_world_size, 3);
  ASSERT_EQ(plan.nodes.size(), 3u);
  EXPECT_EQ(plan.nodes[1].node_rank, 1);
  EXPECT_EQ(plan.nodes[1].first_global_rank, 2);
  EXPECT_EQ(plan.nodes[2].first_global_rank, 5);
  EXPECT_EQ(plan.nodes[1].ranks,
            (std::vector<RankAssignment>{{2, 0, 1, 3, 0}, {3, 1, 1, 3, 1}, {4, 2, 1, 3, 2}}));
  EXPECT_EQ(plan.nodes[2].ranks, (std::vector<RankAssignment>{{5, 0, 2, 1, 3}}));
}

TEST(RankPlan, DevicesFollowTheSelectedSlots) {
  RankPlan plan = make_rank_plan({node("a", {1, 3})});
  EXPECT_EQ(plan.nodes[0].ranks, (std::vector<RankAssignment>{{0, 0, 0, 2, 1}, {1, 1, 0, 2, 3}}));
}

TEST(RankPlan, EmptySelectionIsAnEmptyPlan) {
  RankPlan plan = make_rank_plan({});
  EXPECT_EQ(plan.world_size, 0);
  EXPECT_EQ(plan.max_local_world_size, 0);
  EXPECT_TRUE(plan.nodes.empty());
}

TEST(RankPlan, FormatIsATableWithTotals) {
  RankPlan plan =
      make_rank_plan({node("gpu01", {0, 1}), node("gpu02", {0, 1, 2, 3, 5}, "alice"), node("c", {7})});
  EXPECT_EQ(format_rank_plan(plan),
            "NODE  HOST         RANKS  DEVICES\n"
            "0     gpu01        0-1    0-1\n"
            "1     alice@gpu02  2-6    0-3,5\n"
            "2     c            7      7\n"
            "world size 8 on 3 nodes, at most 5 per node\n");
}

TEST(HostsOfPlan, SlotsAreTheRanksEachNodeRuns) {
  auto b = node("b", {0, 1, 2}, "alice");
  b.host.slots = 8;       // the hostfile said 8; 3 were selected
  b.host.max_slots = 16;  // still above the 3: kept
  auto c = node("c", {0, 1, 2, 3});
  c.host.slots = 2;
  c.host.max_slots = 2;  // --nproc-per-node 4 over `c slots=2 max_slots=2`: a hostfile cannot say max_slots < slots
  auto hosts = hosts_of_plan(make_rank_plan({node("a", {0}), b, c}));
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0], (Host{.name = "a", .user = "", .slots = 1, .max_slots = -1}));
  EXPECT_EQ(hosts[1], (Host{.name = "b", .user = "alice", .slots = 3, .max_slots = 16}));
  EXPECT_EQ(hosts[2], (Host{.name = "c", .user = "", .slots = 4, .max_slots = -1}));
}

}  // namespace
}  // namespace muster::cluster
