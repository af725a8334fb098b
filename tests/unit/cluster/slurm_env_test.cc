#include "cluster/slurm_env.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

std::string tasks_error(std::string_view text) {
  auto counts = parse_tasks_per_node(text);
  EXPECT_FALSE(counts.has_value());
  return counts ? "" : counts.error().message;
}

TEST(TasksPerNode, ExpandsRepeats) {
  EXPECT_EQ(*parse_tasks_per_node("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(*parse_tasks_per_node("8"), (std::vector<int>{8}));
  EXPECT_EQ(*parse_tasks_per_node("4,1(x2),3"), (std::vector<int>{4, 1, 1, 3}));
}

TEST(TasksPerNode, ErrorsNameTheColumn) {
  EXPECT_EQ(tasks_error("2(x3"), "SLURM_TASKS_PER_NODE \"2(x3\", column 5: expected ')', found nothing");
  EXPECT_EQ(tasks_error("2(3)"),
            "SLURM_TASKS_PER_NODE \"2(3)\", column 3: expected 'x' after '(', found '3'");
  EXPECT_EQ(tasks_error("2,,1"), "SLURM_TASKS_PER_NODE \"2,,1\", column 3: expected a task count, found ','");
  EXPECT_EQ(tasks_error(""), "SLURM_TASKS_PER_NODE \"\", column 1: expected a task count, found nothing");
  EXPECT_EQ(tasks_error("2 "), "SLURM_TASKS_PER_NODE \"2 \", column 2: expected ',' or the end, found ' '");
  EXPECT_EQ(tasks_error("0"),
            "SLURM_TASKS_PER_NODE \"0\", column 1: task count must be from 1 to 1000000, found 0");
  EXPECT_EQ(tasks_error("1(x0)"),
            "SLURM_TASKS_PER_NODE \"1(x0)\", column 4: repeat count must be from 1 to 100000, found 0");
}

TEST(TasksPerNode, RefusesMoreNodesThanAHostlistMayHave) {
  EXPECT_EQ(parse_tasks_per_node("1(x100000)")->size(), 100000u);
  EXPECT_EQ(tasks_error("1(x99999),2(x2)"),
            "SLURM_TASKS_PER_NODE \"1(x99999),2(x2)\", column 11: lists more than 100000 nodes");
}

TEST(HostsFromSlurm, PairsNodesWithTheirCounts) {
  auto hosts = hosts_from_slurm("gpu[01-03],cpu7", "2(x3),1");
  ASSERT_TRUE(hosts.has_value()) << hosts.error().message;
  ASSERT_EQ(hosts->size(), 4u);
  EXPECT_EQ((*hosts)[0].name, "gpu01");
  EXPECT_EQ((*hosts)[0].slots, 2);
  EXPECT_EQ((*hosts)[2].name, "gpu03");
  EXPECT_EQ((*hosts)[3].name, "cpu7");
  EXPECT_EQ((*hosts)[3].slots, 1);
  EXPECT_EQ((*hosts)[3].user, "");
}

TEST(HostsFromSlurm, RefusesACountMismatch) {
  auto hosts = hosts_from_slurm("gpu[01-04]", "2");
  ASSERT_FALSE(hosts.has_value());
  EXPECT_EQ(hosts.error().message,
            "SLURM_TASKS_PER_NODE \"2\" gives task counts for 1 nodes, but SLURM_JOB_NODELIST \"gpu[01-04]\" "
            "has 4; "
            "they must match node for node");
}

TEST(HostsFromSlurm, ReportsWhichVariableIsMalformed) {
  auto hosts = hosts_from_slurm("gpu[01-", "1");
  ASSERT_FALSE(hosts.has_value());
  EXPECT_EQ(hosts.error().message,
            "SLURM_JOB_NODELIST \"gpu[01-\", column 8: expected a number, found nothing");
}

}  // namespace
}  // namespace muster::cluster
