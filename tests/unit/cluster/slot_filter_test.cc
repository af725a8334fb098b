#include "cluster/slot_filter.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

Host make_host(std::string name, int slots) {
  Host host;
  host.name = std::move(name);
  host.slots = slots;
  return host;
}

// node1: 4 slots, node2: 2 slots, node3: unspecified.
std::vector<Host> three_hosts() {
  return {make_host("node1", 4), make_host("node2", 2), make_host("node3", -1)};
}

// "node1:0,1 node2:0" style summary of a selection, easy to compare exactly.
std::string summary(const std::vector<NodeSlots>& nodes) {
  std::string text;
  for (const NodeSlots& node : nodes) {
    text += (text.empty() ? "" : " ") + node.host.name + ":";
    for (size_t i = 0; i < node.slots.size(); ++i) text += (i ? "," : "") + std::to_string(node.slots[i]);
  }
  return text;
}

std::string select_ok(const SlotSelection& selection) {
  auto nodes = select_slots(three_hosts(), selection);
  EXPECT_TRUE(nodes.has_value()) << nodes.error().message;
  return nodes ? summary(*nodes) : "";
}

std::string select_error(const SlotSelection& selection) {
  auto nodes = select_slots(three_hosts(), selection);
  EXPECT_FALSE(nodes.has_value()) << summary(*nodes);
  return nodes ? "" : nodes.error().message;
}

TEST(SelectSlots, EverythingByDefaultWithDefaultSlotsForUnspecifiedHosts) {
  EXPECT_EQ(select_ok({}), "node1:0,1,2,3 node2:0,1 node3:0");
  EXPECT_EQ(select_ok({.default_slots = 3}), "node1:0,1,2,3 node2:0,1 node3:0,1,2");
}

TEST(SelectSlots, IncludeKeepsOnlyWhatItNamesInHostOrder) {
  EXPECT_EQ(select_ok({.include = "node2@node1:3,1"}), "node1:1,3 node2:0,1");
  EXPECT_EQ(select_ok({.include = "node1:2@node1:0,2"}), "node1:0,2");
  EXPECT_EQ(select_ok({.include = "node3"}), "node3:0");
}

TEST(SelectSlots, ExcludeRemovesSlotsAndEmptiedHosts) {
  EXPECT_EQ(select_ok({.exclude = "node1:0,2@node3"}), "node1:1,3 node2:0,1");
  EXPECT_EQ(select_ok({.exclude = "node2:0@node2:1"}), "node1:0,1,2,3 node3:0");
}

TEST(SelectSlots, IncludeAndExcludeTogetherIsAnError) {
  auto nodes = select_slots(three_hosts(), {.include = "node1", .exclude = "node2"});
  ASSERT_FALSE(nodes.has_value());
  EXPECT_EQ(nodes.error().kind, ErrorKind::usage);
  EXPECT_EQ(nodes.error().message, "--include and --exclude cannot be used together; give one of them");
}

TEST(SelectSlots, UnknownHostIsNamed) {
  EXPECT_EQ(select_error({.include = "node1@nod2:1"}),
            "--include \"node1@nod2:1\", column 7: unknown host 'nod2'; did you mean 'node2'?");
  EXPECT_EQ(select_error({.exclude = "gpu7"}),
            "--exclude \"gpu7\", column 1: unknown host 'gpu7' (the hosts are node[1-3])");
}

TEST(SelectSlots, SlotOutOfRangeIsNamed) {
  EXPECT_EQ(select_error({.include = "node2:0,2"}),
            "--include \"node2:0,2\", column 9: no slot 2 on host 'node2', which has slots 0-1");
  EXPECT_EQ(select_error({.exclude = "node3:1"}),
            "--exclude \"node3:1\", column 7: no slot 1 on host 'node3', which has only slot 0");
}

TEST(SelectSlots, FilterSyntaxErrorsNameTheColumn) {
  EXPECT_EQ(select_error({.include = "node1:x"}),
            "--include \"node1:x\", column 7: expected a slot index, found 'x'");
  EXPECT_EQ(select_error({.include = "node1:1,"}),
            "--include \"node1:1,\", column 9: expected a slot index, found nothing");
  EXPECT_EQ(select_error({.include = "node1:1a"}),
            "--include \"node1:1a\", column 8: expected a slot index, found 'a'");
  EXPECT_EQ(select_error({.include = "node1@@node2"}),
            "--include \"node1@@node2\", column 7: expected a host name, found '@'");
  EXPECT_EQ(select_error({.include = "no de"}),
            "--include \"no de\", column 3: invalid character ' ' in host name 'no de'");
}

TEST(SelectSlots, ExcludingEverythingIsAnError) {
  EXPECT_EQ(select_error({.exclude = "node1@node2@node3"}),
            "--exclude \"node1@node2@node3\", column 1: leaves no slots to run on");
}

TEST(SelectSlots, NumNodesKeepsTheFirstNodes) {
  EXPECT_EQ(select_ok({.num_nodes = 2}), "node1:0,1,2,3 node2:0,1");
  EXPECT_EQ(select_ok({.exclude = "node1", .num_nodes = 1}), "node2:0,1");
  EXPECT_EQ(select_error({.num_nodes = 4}), "asked for 4 nodes, but only 3 are available");
  EXPECT_EQ(select_error({.num_nodes = 0}), "num_nodes must be at least 1 (or -1 for all), found 0");
}

TEST(SelectSlots, NprocPerNodeKeepsTheFirstSlots) {
  EXPECT_EQ(select_ok({.exclude = "node3", .nproc_per_node = 2}), "node1:0,1 node2:0,1");
  EXPECT_EQ(select_ok({.include = "node1:1,3", .nproc_per_node = 1}), "node1:1");
  EXPECT_EQ(select_error({.nproc_per_node = 2}),
            "asked for 2 processes per node, but host 'node3' has 1 slot");
  EXPECT_EQ(select_error({.nproc_per_node = -2}),
            "nproc_per_node must be at least 1 (or -1 for all), found -2");
}

TEST(SelectSlots, NoHostsIsAnError) {
  auto nodes = select_slots({}, {});
  ASSERT_FALSE(nodes.has_value());
  EXPECT_EQ(nodes.error().message, "no hosts with slots to run on");
  EXPECT_EQ(select_error({.default_slots = 0}), "default_slots must be from 1 to 1000000, found 0");
}

}  // namespace
}  // namespace muster::cluster
