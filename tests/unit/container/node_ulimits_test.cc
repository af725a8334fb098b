// The ulimits a podman container gets on a node (node_ulimits.h): with any --ulimit, nofile and nproc are given
// at the node's own values, since podman would otherwise ask for 1,048,576 of each and runc fail where the hard
// limit is lower; what the job asked for by name stays; docker, and no ulimit at all, are left alone.
#include "container/node_ulimits.h"

#include <gtest/gtest.h>

namespace muster::container {
namespace {

const NodeLimits kNode{1024, 20000, 32768, 32768};

TEST(NodeUlimits, PodmanGetsTheNodesNofileAndNprocWithMustersDefaults) {
  auto limits = ulimits_for_node(default_ulimits(), Runtime::podman, kNode);
  ASSERT_EQ(limits.size(), 4u);
  EXPECT_EQ(limits[0], (Ulimit{"memlock", -1, -1}));
  EXPECT_EQ(limits[1], (Ulimit{"stack", kStackBytes, kStackBytes}));
  EXPECT_EQ(limits[2].flag_value(), "nofile=1024:20000");
  EXPECT_EQ(limits[3].flag_value(), "nproc=32768:32768");
}

TEST(NodeUlimits, WhatTheJobAskedForByNameStays) {
  auto asked = ulimits_with({"nofile=4096:8192"});
  ASSERT_TRUE(asked);
  auto limits = ulimits_for_node(*asked, Runtime::podman, kNode);
  ASSERT_EQ(limits.size(), 4u);
  EXPECT_EQ(limits[2].flag_value(), "nofile=4096:8192");
  EXPECT_EQ(limits[3].flag_value(), "nproc=32768:32768");
}

TEST(NodeUlimits, DockerAndNoUlimitAtAllAreLeftAlone) {
  EXPECT_EQ(ulimits_for_node(default_ulimits(), Runtime::docker, kNode), default_ulimits());
  EXPECT_TRUE(ulimits_for_node({}, Runtime::podman, kNode).empty());
}

TEST(NodeUlimits, UnknownOrUnlimitedValues) {
  EXPECT_EQ(ulimits_for_node(default_ulimits(), Runtime::podman, {}).size(), 2u);  // nothing known: nothing added
  auto limits = ulimits_for_node(default_ulimits(), Runtime::podman, {1024, 4096, UINT64_MAX, UINT64_MAX});
  ASSERT_EQ(limits.size(), 4u);
  EXPECT_EQ(limits[3].flag_value(), "nproc=-1:-1");
}

}  // namespace
}  // namespace muster::container
