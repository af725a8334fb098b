#include "cluster/node_groups.h"

#include <gtest/gtest.h>

#include "cluster/hostlist.h"

namespace muster::cluster {
namespace {

NodeGroups sample() {
  return {{"gpu", {"node[1-4]", "muster.toml:2"}},
          {"big", {"node[9-10],fat1", "muster.toml:3"}},
          {"all", {"@gpu,@big", "muster.toml:4"}},
          {"odd", {"node[1-5],-node[2,4]", "muster.toml:5"}}};
}

std::vector<std::string> hosts(std::string_view expr) {
  auto plain = expand_node_groups(expr, sample());
  EXPECT_TRUE(plain.has_value()) << plain.error().message;
  if (!plain) return {};
  auto names = expand_hostlist(*plain);
  EXPECT_TRUE(names.has_value()) << names.error().message;
  return names ? *names : std::vector<std::string>{};
}

std::string error_of(std::string_view expr, const NodeGroups& groups = sample()) {
  auto plain = expand_node_groups(expr, groups, "--hosts");
  EXPECT_FALSE(plain.has_value()) << *plain;
  return plain ? "" : plain.error().message;
}

TEST(NodeGroups, AGroupStandsForItsHosts) {
  EXPECT_EQ(hosts("@gpu"), (std::vector<std::string>{"node1", "node2", "node3", "node4"}));
  EXPECT_EQ(hosts("login,@big"), (std::vector<std::string>{"login", "node9", "node10", "fat1"}));
}

TEST(NodeGroups, GroupsNameGroups) {
  EXPECT_EQ(hosts("@all").size(), 7u);
}

TEST(NodeGroups, MinusAGroupExcludesItsHosts) {
  EXPECT_EQ(hosts("@all,-@gpu"), (std::vector<std::string>{"node9", "node10", "fat1"}));
  EXPECT_EQ(hosts("@all,-@big,-node3"), (std::vector<std::string>{"node1", "node2", "node4"}));
}

TEST(NodeGroups, AGroupsOwnExclusionsStayInside) {
  // node2 is excluded inside @odd only: named again outside, it stays.
  EXPECT_EQ(hosts("node2,@odd"), (std::vector<std::string>{"node2", "node1", "node3", "node5"}));
}

TEST(NodeGroups, BracketsAndUsersAreLeftAlone) {
  auto plain = expand_node_groups("alice@node[1-2,4],bob@x", sample());
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(*plain, "alice@node[1-2,4],bob@x");
}

TEST(NodeGroups, UnknownGroupsAreNamedWithAGuess) {
  EXPECT_EQ(error_of("@gpus"), "--hosts: unknown node group @gpus, did you mean @gpu?");
  EXPECT_NE(error_of("@zzzzzz").find("(groups: @all, @big, @gpu, @odd)"), std::string::npos);
  EXPECT_NE(error_of("@gpu", {}).find("no groups are defined"), std::string::npos);
}

TEST(NodeGroups, CyclesAreRefused) {
  NodeGroups groups{{"a", {"@b", "f:1"}}, {"b", {"node1,@a", "f:2"}}};
  EXPECT_EQ(error_of("@a", groups), "node group @a (f:1) names itself: @a -> @b -> @a");
}

TEST(NodeGroups, BadDefinitionsNameTheGroup) {
  NodeGroups groups{{"bad", {"node[1-", "muster.toml:7"}}};
  EXPECT_NE(error_of("@bad", groups).find("node group @bad (muster.toml:7)"), std::string::npos);
}

TEST(NodeGroups, ValidNames) {
  EXPECT_TRUE(valid_group_name("gpu"));
  EXPECT_TRUE(valid_group_name("rack-1.a_b"));
  EXPECT_FALSE(valid_group_name(""));
  EXPECT_FALSE(valid_group_name("-x"));
  EXPECT_FALSE(valid_group_name("a b"));
  EXPECT_FALSE(valid_group_name("a@b"));
}

}  // namespace
}  // namespace muster::cluster
