#include "doctor/checks/report.h"

#include <gtest/gtest.h>

namespace muster::doctor {
namespace {

const std::vector<std::string> kNames = {"node1", "node2"};

std::vector<Finding> sample() {
  return {
      {Severity::ok, "hostnames", "", "every node has its own hostname", ""},
      {Severity::ok, "versions", "", "identical on every node: python 3.11.2", ""},
      {Severity::warning, "shm", "node2", "/dev/shm is 64 MiB (< 1 GiB)", "--shm-size=16g"},
      {Severity::error, "versions", "node2",
       "torch is not the same on every node (odd: node2):\n  2.3.0  node1\n  2.1.0  node2",
       "on node2: pip install torch==2.3.0"},
      {Severity::ok, "network", "", "eth0 is up on every node",
       "export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0"},
  };
}

TEST(Report, GroupsByCheckErrorsFirstWithFixes) {
  EXPECT_EQ(format_report(sample(), kNames, false),
            "muster doctor: 2 nodes (node[1-2])\n"
            "\n"
            "versions\n"
            "  ERROR node2: torch is not the same on every node (odd: node2):\n"
            "          2.3.0  node1\n"
            "          2.1.0  node2\n"
            "        fix: on node2: pip install torch==2.3.0\n"
            "  ok    identical on every node: python 3.11.2\n"
            "\n"
            "shm\n"
            "  WARN  node2: /dev/shm is 64 MiB (< 1 GiB)\n"
            "        fix: --shm-size=16g\n"
            "\n"
            "hostnames\n"
            "  ok    every node has its own hostname\n"
            "\n"
            "network\n"
            "  ok    eth0 is up on every node\n"
            "        use: export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0\n"
            "\n"
            "1 error, 1 warning, 3 checks passed\n");
}

TEST(Report, ColorOnlyWhenAsked) {
  EXPECT_EQ(format_report(sample(), kNames, false).find('\033'), std::string::npos);
  std::string colored = format_report(sample(), kNames, true);
  EXPECT_NE(colored.find("\033[1;31mERROR\033[0m"), std::string::npos);
}

TEST(Report, TheSameFindingOnSeveralNodesIsOneLine) {
  std::vector<Finding> findings;
  for (const char* node : {"node3", "node5", "node6", "node7"}) {
    findings.push_back({Severity::warning, "memlock", node, "memlock is 64 KiB", "ulimit -l unlimited"});
  }
  findings.push_back({Severity::warning, "memlock", "node4", "memlock is 8 MiB", "ulimit -l unlimited"});
  std::string report = format_report(findings, {"node3", "node4", "node5", "node6", "node7"}, false);
  EXPECT_NE(report.find("muster doctor: 5 nodes (node[3-7])\n"), std::string::npos) << report;
  EXPECT_NE(report.find("  WARN  node[3,5-7] (4): memlock is 64 KiB\n        fix: ulimit -l unlimited\n"
                        "  WARN  node4: memlock is 8 MiB\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("0 errors, 5 warnings"), std::string::npos) << report;
}

TEST(Report, ClusterWideProblemSaysCluster) {
  std::vector<Finding> findings = {{Severity::error, "network", "", "no common interface", "connect them"}};
  EXPECT_NE(format_report(findings, kNames, false).find("  ERROR cluster: no common interface\n"),
            std::string::npos);
}

TEST(Report, JsonFollowsTheSchema) {
  auto json = report_json(sample(), kNames);
  EXPECT_EQ(json["version"], 1);
  EXPECT_EQ(json["nodes"], nlohmann::json({"node1", "node2"}));
  ASSERT_EQ(json["findings"].size(), 5u);
  EXPECT_EQ(json["findings"][0], nlohmann::json({{"severity", "error"},
                                                 {"check", "versions"},
                                                 {"node", "node2"},
                                                 {"message", sample()[3].message},
                                                 {"fix", "on node2: pip install torch==2.3.0"}}));
  EXPECT_EQ(json["summary"], nlohmann::json({{"errors", 1}, {"warnings", 1}, {"ok", 3}}));
}

TEST(Report, ExitCode) {
  EXPECT_EQ(exit_code({}), 0);
  EXPECT_EQ(exit_code({{Severity::ok, "a", "", "", ""}}), 0);
  EXPECT_EQ(exit_code({{Severity::ok, "a", "", "", ""}, {Severity::warning, "b", "", "", ""}}), 1);
  EXPECT_EQ(exit_code({{Severity::error, "a", "", "", ""}, {Severity::warning, "b", "", "", ""}}), 2);
}

}  // namespace
}  // namespace muster::doctor
