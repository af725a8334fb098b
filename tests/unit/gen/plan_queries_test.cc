#include "gen/plan_queries.h"

#include <gtest/gtest.h>

namespace muster::gen {
namespace {

cluster::NodeSlots node(std::string name, std::vector<int> slots, std::string user = "") {
  return {.host = {.name = std::move(name), .user = std::move(user)}, .slots = std::move(slots)};
}

TEST(PlanQueries, MasterIsNodeZeroUnlessGiven) {
  auto plan = cluster::make_rank_plan({node("a", {0}), node("b", {0})});
  GenOptions options;
  EXPECT_EQ(master_address(plan, options), "a");
  options.master_addr = "10.0.0.9";
  EXPECT_EQ(master_address(plan, options), "10.0.0.9");
}

TEST(PlanQueries, UniformWorkersOrAnErrorNamingTwoNodesThatDiffer) {
  EXPECT_EQ(*uniform_workers(cluster::make_rank_plan({node("a", {0, 1}), node("b", {0, 1})}), "k", "r"), 2);
  auto uneven =
      uniform_workers(cluster::make_rank_plan({node("a", {0, 1}), node("b", {0, 1, 2})}), "kind", "why");
  ASSERT_FALSE(uneven);
  EXPECT_EQ(uneven.error().kind, ErrorKind::usage);
  EXPECT_EQ(uneven.error().message,
            "kind: why, but a runs 2 and b runs 3; choose one count with --nproc-per-node");
}

TEST(PlanQueries, DevicesAndTheFirstDevicesShortcut) {
  auto plan = cluster::make_rank_plan({node("a", {0, 1}), node("b", {1, 3})});
  EXPECT_TRUE(uses_first_devices(plan.nodes[0]));
  EXPECT_FALSE(uses_first_devices(plan.nodes[1]));
  EXPECT_EQ(device_list(plan.nodes[1]), "1,3");
  EXPECT_EQ(node_devices(plan.nodes[1]), (std::vector<int>{1, 3}));
}

TEST(PlanQueries, FileNamesAreHostNamesWithTheRankWhenTwoNodesShareOne) {
  auto plan = cluster::make_rank_plan({node("a", {0}, "alice"), node("a", {0}, "bob"), node("b", {0})});
  EXPECT_EQ(node_file_name(plan, plan.nodes[0], ".yaml"), "a-0.yaml");
  EXPECT_EQ(node_file_name(plan, plan.nodes[1], ".yaml"), "a-1.yaml");
  EXPECT_EQ(node_file_name(plan, plan.nodes[2], ".yaml"), "b.yaml");
}

TEST(PlanQueries, Ipv4Addresses) {
  EXPECT_TRUE(is_ipv4_address("10.0.0.1"));
  EXPECT_TRUE(is_ipv4_address("255.255.255.255"));
  EXPECT_FALSE(is_ipv4_address("256.0.0.1"));
  EXPECT_FALSE(is_ipv4_address("10.0.0"));
  EXPECT_FALSE(is_ipv4_address("10.0.0.1.2"));
  EXPECT_FALSE(is_ipv4_address("node1"));
  EXPECT_FALSE(is_ipv4_address("10..0.1"));
  EXPECT_FALSE(is_ipv4_address("1000.0.0.1"));
}

}  // namespace
}  // namespace muster::gen
