#include "exec/gather.h"

#include <gtest/gtest.h>

namespace muster::exec {
namespace {

NodeOutcome ran(std::string node, std::string out, int code = 0) {
  NodeOutcome outcome;
  outcome.node = std::move(node);
  outcome.out = std::move(out);
  outcome.ending = Ending::exited;
  outcome.code = code;
  return outcome;
}

NodeOutcome ended(std::string node, Ending ending, int code = 0, std::string reason = "") {
  NodeOutcome outcome;
  outcome.node = std::move(node);
  outcome.ending = ending;
  outcome.code = code;
  outcome.reason = std::move(reason);
  return outcome;
}

TEST(Gather, IdenticalOutputsFoldUnderOneNodeSetLargestFirst) {
  std::vector<NodeOutcome> outcomes = {ran("node3", "b\n"), ran("node1", "a\n"), ran("node2", "a\n"),
                                       ran("node5", "a\n"), ran("node4", "c\n")};
  auto groups = gather_outputs(outcomes);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].nodes, (std::vector<std::string>{"node1", "node2", "node5"}));
  EXPECT_EQ(groups[1].nodes, (std::vector<std::string>{"node3"}));  // ties: the first node in set order
  EXPECT_EQ(groups[2].nodes, (std::vector<std::string>{"node4"}));
  EXPECT_EQ(format_gathered(groups),
            "---------------\nnode[1-2,5] (3)\n---------------\na\n"
            "---------------\nnode3\n---------------\nb\n"
            "---------------\nnode4\n---------------\nc\n");
}

TEST(Gather, DifferentExitStatusesStayApartAsInClush) {
  auto groups = gather_outputs({ran("n1", "x\n"), ran("n2", "x\n", 1), ran("n3", "x\n")});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].nodes.size(), 2u);
  EXPECT_EQ(groups[1].status, 1);
}

TEST(Gather, SilentAndUnreachableNodesAreInNoGroup) {
  auto groups = gather_outputs({ran("n1", ""), ran("n2", "x"), ended("n3", Ending::unreachable, 0, "refused")});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(format_gathered(groups), "---------------\nn2\n---------------\nx\n");  // a final newline added
  EXPECT_EQ(gather_outputs({ran("n1", ""), ran("n2", "x")}, true).size(), 2u);
}

TEST(Gather, DiffsAgainstTheMostCommonOutput) {
  std::vector<NodeOutcome> outcomes = {ran("n1", "torch 2.1\ncuda 12\n"), ran("n2", "torch 2.1\ncuda 12\n"),
                                       ran("n3", "torch 2.0\ncuda 12\n"), ran("n4", "")};
  std::string text = format_diffs(gather_outputs(outcomes, true));
  EXPECT_EQ(text,
            "---------------\nn[1-2] (2)\n---------------\ntorch 2.1\ncuda 12\n"
            "--- n[1-2] (2)\n+++ n3\n@@ -1,2 +1,2 @@\n-torch 2.1\n+torch 2.0\n cuda 12\n"
            "--- n[1-2] (2)\n+++ n4\n@@ -1,2 +0,0 @@\n-torch 2.1\n-cuda 12\n");
}

TEST(Gather, FailuresAreFoldedByWhatHappened) {
  std::vector<NodeOutcome> outcomes = {
      ran("node1", "", 0),
      ran("node3", "", 1),
      ran("node7", "", 1),
      ended("node5", Ending::timed_out, 15),
      ended("node9", Ending::unreachable, 0, "ssh: connect to host node9 port 22: Connection refused"),
      ended("node2", Ending::signaled, 9),
  };
  EXPECT_EQ(failure_lines(outcomes, 2.5),
            (std::vector<std::string>{"node[3,7] (2): exit code 1", "node5: timed out after 2.5 s (stopped)",
                                      "node9: not reached: ssh: connect to host node9 port 22: Connection refused",
                                      "node2: killed by SIGKILL"}));
  EXPECT_TRUE(failure_lines({ran("node1", "x")}, 0).empty());
}

TEST(Gather, TheWorstExitStatusWins) {
  EXPECT_EQ(worst_exit_status({ran("a", "", 0), ran("b", "", 3), ran("c", "", 1)}), 3);
  EXPECT_EQ(worst_exit_status({ran("a", "", 3), ended("b", Ending::timed_out, 15)}), kTimedOutStatus);
  EXPECT_EQ(worst_exit_status({ran("a", "", 3), ended("b", Ending::unreachable)}), kUnreachableStatus);
  EXPECT_EQ(worst_exit_status({ended("a", Ending::signaled, 9)}), 137);
  EXPECT_EQ(worst_exit_status({}), 0);
}

TEST(Gather, JsonHasEveryNodeAndTheGroups) {
  auto json = outcomes_json({ran("n1", "a\n"), ran("n2", "a\n"), ended("n3", Ending::unreachable, 0, "no route")});
  EXPECT_EQ(json["exit_code"], 255);
  ASSERT_EQ(json["nodes"].size(), 3u);
  EXPECT_EQ(json["nodes"][2]["ending"], "unreachable");
  EXPECT_EQ(json["nodes"][2]["reason"], "no route");
  ASSERT_EQ(json["groups"].size(), 1u);
  EXPECT_EQ(json["groups"][0]["nodes"], "n[1-2]");
  EXPECT_EQ(json["groups"][0]["count"], 2);
}

}  // namespace
}  // namespace muster::exec
