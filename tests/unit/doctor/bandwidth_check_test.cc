#include "doctor/bandwidth/verdict.h"

#include <gtest/gtest.h>

#include "doctor/bandwidth/findings.h"
#include "doctor/bandwidth/table.h"
#include "doctor/checks/report.h"

namespace muster::doctor {
namespace {

const std::vector<std::string> kNames = {"node1", "node2", "node3", "node4"};

LinkSample ok(double mbps, double rtt_us = 20) {
  return {.ok = true, .mbps = mbps, .bytes = 1, .seconds = 2, .rtt_us = rtt_us, .error = ""};
}

// A ring of 4 where node3 is capped at 100 Mbit: node2→node3 and node3→node4 are slow.
BandwidthResult ring_with_slow_node3() {
  BandwidthResult result;
  result.mode = BandwidthMode::ring;
  result.seconds = 2;
  result.links = bandwidth_rounds(4, BandwidthMode::ring)[0];
  result.samples = {ok(941), ok(95.3), ok(94.8), ok(938)};
  result.interfaces.assign(4, {"eth0", 10000, false});
  return result;
}

BandwidthResult all_pairs(size_t nodes, double slow_mbps, size_t slow_node) {
  BandwidthResult result;
  result.mode = BandwidthMode::pairs;
  result.seconds = 1;
  for (const auto& round : bandwidth_rounds(nodes, BandwidthMode::pairs)) {
    for (const auto& link : round) {
      result.links.push_back(link);
      bool slow = link.from == slow_node || link.to == slow_node;
      result.samples.push_back(ok(slow ? slow_mbps : 940));
    }
  }
  return result;
}

std::vector<Finding> warnings(const std::vector<Finding>& findings) {
  std::vector<Finding> out;
  for (const auto& finding : findings) {
    if (finding.severity != Severity::ok) out.push_back(finding);
  }
  return out;
}

TEST(JudgeBandwidth, FlagsOnlyTheCappedNodesLinks) {
  BandwidthVerdict verdict = judge_bandwidth(ring_with_slow_node3(), 4);
  // The median of the nodes' best links: 941, 941, 95.3, 938.
  EXPECT_DOUBLE_EQ(verdict.reference_mbps, 939.5);
  EXPECT_EQ(verdict.slow, (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(verdict.slow_nodes, (std::vector<size_t>{2}));
}

TEST(JudgeBandwidth, AThreeNodeRingStillNamesTheSlowNode) {
  // Two of three links touch the slow node: a median over links would call them normal.
  BandwidthResult result;
  result.links = bandwidth_rounds(3, BandwidthMode::ring)[0];  // 0→1, 1→2, 2→0
  result.samples = {ok(950), ok(96), ok(95)};
  BandwidthVerdict verdict = judge_bandwidth(result, 3);
  EXPECT_EQ(verdict.slow, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(verdict.slow_nodes, (std::vector<size_t>{2}));
}

TEST(JudgeBandwidth, HealthyClusterAndFailedLinksFlagNothingSlow) {
  BandwidthResult result = all_pairs(4, 930, 2);  // 930 vs 940: noise
  result.samples[0] = LinkSample{.error = "timed out"};
  BandwidthVerdict verdict = judge_bandwidth(result, 4);
  for (bool slow : verdict.slow) EXPECT_FALSE(slow);
  EXPECT_TRUE(verdict.slow_nodes.empty());
}

TEST(CheckBandwidth, OneWarningNamingTheNodeItsLinksAndTheFix) {
  auto found = warnings(check_bandwidth(kNames, ring_with_slow_node3()));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].node, "node3");
  EXPECT_EQ(found[0].check, "bandwidth");
  EXPECT_NE(found[0].message.find("node3's links are slow: node2 → node3 95.3 Mbit/s, node3 → node4 94.8 Mbit/s "
                                  "vs 940 Mbit/s"),
            std::string::npos)
      << found[0].message;
  EXPECT_NE(found[0].message.find("NCCL"), std::string::npos);
  EXPECT_NE(found[0].fix.find("ethtool eth0"), std::string::npos);
}

TEST(CheckBandwidth, ANegotiatedDownNicIsNamed) {
  BandwidthResult result = ring_with_slow_node3();
  result.interfaces[2] = {"enp1s0", 100, true};
  auto found = warnings(check_bandwidth(kNames, result));
  ASSERT_FALSE(found.empty());
  EXPECT_NE(found[0].message.find("its enp1s0 negotiated only 100 Mb/s"), std::string::npos) << found[0].message;
}

TEST(CheckBandwidth, ASlowLinkBetweenHealthyNodesIsNamedAlone) {
  BandwidthResult result = all_pairs(4, 940, 0);
  result.samples[0] = ok(200);  // only link 0, between two otherwise healthy nodes
  auto found = warnings(check_bandwidth(kNames, result));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("is slow: 200 Mbit/s vs 940 Mbit/s"), std::string::npos) << found[0].message;
}

TEST(CheckBandwidth, UnmeasuredLinkIsAWarningWithAFirewallFix) {
  BandwidthResult result = all_pairs(3, 940, 0);
  result.samples[1] = LinkSample{.error = "cannot connect to 10.0.0.2:4000: No route to host"};
  auto found = warnings(check_bandwidth({"a", "b", "c"}, result));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("could not measure: cannot connect"), std::string::npos);
  EXPECT_NE(found[0].fix.find("allow TCP"), std::string::npos);
}

TEST(CheckBandwidth, PhysicalNicFarBelowItsSpeedButNotAVeth) {
  BandwidthResult result = all_pairs(3, 940, 0);  // every link 940
  result.interfaces = {{"eth0", 10000, true}, {"eth0", 10000, false}, {"eth0", 100000, true}};
  auto found = warnings(check_bandwidth({"a", "b", "c"}, result));
  // a: a 10 GbE NIC at 940 Mbit/s; b: a veth (its 10000 means nothing); c: 100 GbE, beyond one TCP stream.
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].node, "a");
  EXPECT_NE(found[0].message.find("9% of the 10000 Mb/s its eth0 reports"), std::string::npos) << found[0].message;
}

TEST(CheckBandwidth, HealthyRingIsOneOkFindingWithTheTable) {
  BandwidthResult result = ring_with_slow_node3();
  result.samples = {ok(941, 20), ok(940, 22), ok(939, 24), ok(938, 20)};
  auto found = check_bandwidth(kNames, result);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::ok);
  EXPECT_EQ(found[0].message,
            "4 of 4 links measured (ring, 2.0 s each): a healthy node reaches 940 Mbit/s, slowest node4 → node1 "
            "938 Mbit/s, round trip median 21 µs\n"
            "link             Mbit/s  round trip\n"
            "node1 → node2      941        20 µs\n"
            "node2 → node3      940        22 µs\n"
            "node3 → node4      939        24 µs\n"
            "node4 → node1      938        20 µs");
  EXPECT_EQ(exit_code(found), 0);
}

TEST(BandwidthTable, PairsMatrixMarksSlowCells) {
  BandwidthResult result = all_pairs(3, 95.4, 2);
  std::string table = format_bandwidth_table({"a", "b", "c"}, result, judge_bandwidth(result, 3));
  EXPECT_EQ(table,
            "Mbit/s to →      a       b       c \n"
            "a                -     940    95.4!\n"
            "b              940       -    95.4!\n"
            "c             95.4!   95.4!      - ");
}

TEST(BandwidthTable, RatesReadNaturally) {
  EXPECT_EQ(format_rate(9412), "9412 Mbit/s");
  EXPECT_EQ(format_rate(23400), "23.40 Gbit/s");
  EXPECT_EQ(format_rate(95.34), "95.3 Mbit/s");
  EXPECT_EQ(format_rate(1.5), "1.50 Mbit/s");
}

TEST(BandwidthTable, JsonHasNodesLinksAndTheVerdict) {
  auto json = bandwidth_json(kNames, ring_with_slow_node3());
  EXPECT_EQ(json["mode"], "ring");
  EXPECT_EQ(json["seconds"], 2.0);
  EXPECT_EQ(json["reference_mbps"], 939.5);
  ASSERT_EQ(json["nodes"].size(), 4u);
  EXPECT_EQ(json["nodes"][2]["name"], "node3");
  EXPECT_EQ(json["nodes"][2]["slow"], true);
  EXPECT_EQ(json["nodes"][2]["interface"], "eth0");
  EXPECT_EQ(json["nodes"][2]["speed_mbps"], 10000);
  EXPECT_EQ(json["nodes"][0]["slow"], false);
  ASSERT_EQ(json["links"].size(), 4u);
  EXPECT_EQ(json["links"][1]["from"], "node2");
  EXPECT_EQ(json["links"][1]["to"], "node3");
  EXPECT_EQ(json["links"][1]["mbps"], 95.3);
  EXPECT_EQ(json["links"][1]["slow"], true);
  EXPECT_EQ(json["links"][1]["ok"], true);
  EXPECT_EQ(json["links"][0]["slow"], false);
}

}  // namespace
}  // namespace muster::doctor
