// The fabric verdict: a slow node named from the pairwise rounds, a slow link, nothing on a healthy fabric, the
// hardware comparison; and the sweep's result line read back.
#include "fabric/verdict.h"

#include <gtest/gtest.h>

#include "fabric/measurement.h"

namespace muster::fabric {
namespace {

const std::vector<std::string> kNames = {"node1", "node2", "node3", "node4", "node5", "node6"};

// Every pair of 6 nodes at `fast` Gbit/s, except those of `slow_node` (0-based; -1 none) at `slow`, and the pair
// (link_a, link_b) at `slow`.
FabricMeasurement measured(double fast, int slow_node, double slow, int link_a = -1, int link_b = -1) {
  FabricMeasurement m;
  m.backend = "gloo";
  for (int a = 0; a < 6; ++a) {
    for (int b = a + 1; b < 6; ++b) {
      bool is_slow = a == slow_node || b == slow_node || (a == link_a && b == link_b);
      m.pairs.push_back({a, b, 0.1, is_slow ? slow : fast});
    }
  }
  m.ring.push_back({1 << 20, 0.05, slow_node >= 0 || link_a >= 0 ? slow * 0.9 : fast * 0.9});
  m.ring.push_back({16 << 20, 0.5, slow_node >= 0 || link_a >= 0 ? slow * 0.95 : fast * 0.95});
  for (int i = 0; i < 6; ++i) m.nodes.push_back({"node" + std::to_string(i + 1), "eth0", 0, 0});
  return m;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(FabricVerdict, ASlowNodeIsNamedWithCauseAndFix) {
  auto v = judge_fabric(measured(0.9, 3, 0.09), kNames);
  ASSERT_EQ(v.slow_nodes, std::vector<std::string>{"node4"});
  EXPECT_TRUE(v.slow_links.empty());
  const Finding& f = v.findings.at(0);
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_EQ(f.node, "node4");
  EXPECT_TRUE(has(f.message, "node4's link is slow")) << f.message;
  EXPECT_TRUE(has(f.message, "0.09 Gbit/s")) << f.message;
  EXPECT_TRUE(has(f.fix, "--exclude-hosts node4")) << f.fix;
  EXPECT_TRUE(has(f.fix, "ethtool")) << f.fix;
}

TEST(FabricVerdict, AHealthyFabricHasNothingWrong) {
  auto v = judge_fabric(measured(0.9, -1, 0), kNames);
  EXPECT_TRUE(v.slow_nodes.empty());
  EXPECT_TRUE(v.slow_links.empty());
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].severity, Severity::ok);
  EXPECT_TRUE(has(v.findings[0].message, "bus bandwidth 0.85 Gbit/s at 16 MiB")) << v.findings[0].message;
  EXPECT_TRUE(has(v.findings[0].message, "virtual")) << v.findings[0].message;
}

TEST(FabricVerdict, ASlowLinkBetweenFastNodes) {
  auto v = judge_fabric(measured(0.9, -1, 0.2, 1, 4), kNames);
  EXPECT_TRUE(v.slow_nodes.empty());
  ASSERT_EQ(v.slow_links, std::vector<std::string>{"node2-node5"});
}

TEST(FabricVerdict, NcclBelowTheLinksIsAWarning) {
  auto m = measured(100, -1, 0);
  m.backend = "nccl";
  for (auto& node : m.nodes) node.ib_gbps = 400;  // NDR; the ring gives 95
  auto v = judge_fabric(m, kNames);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].severity, Severity::warning);
  EXPECT_TRUE(has(v.findings[0].message, "24% of the links' 400 Gbit/s")) << v.findings[0].message;
}

TEST(FabricMeasurement, TheResultLineIsRead) {
  std::string log =
      "some warning\nMUSTER-FABRIC {\"backend\": \"gloo\", \"world\": 3, \"ring\": [{\"bytes\": 1048576, \"seconds\": "
      "0.01, \"busbw_gbps\": 1.5}], \"pairs\": [{\"a\": 0, \"b\": 2, \"seconds\": 0.02, \"gbps\": 1.2}], \"nodes\": "
      "[{\"host\": \"n1\", \"nic\": \"eth0\", \"nic_gbps\": 0.0, \"ib_gbps\": 0.0}]}\n";
  auto m = parse_measurement(log);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  EXPECT_EQ(m->backend, "gloo");
  ASSERT_EQ(m->pairs.size(), 1u);
  EXPECT_EQ(m->pairs[0].b, 2);
  EXPECT_DOUBLE_EQ(m->ring[0].busbw_gbps, 1.5);
  EXPECT_FALSE(parse_measurement("Traceback (most recent call last):\n").has_value());
}

}  // namespace
}  // namespace muster::fabric
