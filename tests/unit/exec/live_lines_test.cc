#include "exec/live_lines.h"

#include <gtest/gtest.h>

#include "exec/run_exec.h"

namespace muster::exec {
namespace {

TEST(LiveLines, CompleteLinesGetTheNodesPrefix) {
  LiveLines lines;
  EXPECT_EQ(lines.feed("node1", OutStream::out, "a\nb"), "node1: a\n");
  EXPECT_EQ(lines.feed("node2", OutStream::out, "x\n"), "node2: x\n");
  EXPECT_EQ(lines.feed("node1", OutStream::err, "e"), "");
  EXPECT_EQ(lines.feed("node1", OutStream::out, "c\nd\n"), "node1: bc\nnode1: d\n");
  EXPECT_EQ(lines.finish("node1", OutStream::out), "");
  EXPECT_EQ(lines.finish("node1", OutStream::err), "node1: e\n");
}

TEST(LiveLines, EndlessLinesComeInPieces) {
  LiveLines lines;
  std::string chunk(40 * 1024, 'x');
  EXPECT_EQ(lines.feed("n", OutStream::out, chunk), "");
  EXPECT_EQ(lines.feed("n", OutStream::out, chunk).size(), 80 * 1024 + 4);
}

TEST(NodeArgv, OneWordIsAShellLineMoreAreArguments) {
  EXPECT_EQ(node_argv({"df -h | tail -1"}), (std::vector<std::string>{"/bin/sh", "-c", "df -h | tail -1"}));
  EXPECT_EQ(node_argv({"python3", "-c", "import torch; print(1)"}),
            (std::vector<std::string>{"/bin/sh", "-c", "python3 -c 'import torch; print(1)'"}));
}

}  // namespace
}  // namespace muster::exec
