#include "gen/torchrun_command.h"

#include <gtest/gtest.h>

namespace muster::gen {
namespace {

using Argv = std::vector<std::string>;

const TorchrunValues kValues{
    .nnodes = "2", .node_rank = "1", .master_addr = "node1", .master_port = "29500", .nproc_per_node = "4"};
const Argv kPrefix = {
    "torchrun",          "--nnodes=2", "--node_rank=1", "--master_addr=node1", "--master_port=29500",
    "--nproc_per_node=4"};

Argv with_prefix(const Argv& rest) {
  Argv argv = kPrefix;
  argv.insert(argv.end(), rest.begin(), rest.end());
  return argv;
}

TEST(TorchrunCommand, PythonScriptBecomesTorchrunsScript) {
  EXPECT_EQ(torchrun_command(kValues, {"python3", "train.py", "--lr", "1"}),
            with_prefix({"train.py", "--lr", "1"}));
  EXPECT_EQ(torchrun_command(kValues, {"/usr/bin/python3.11", "t.py"}), with_prefix({"t.py"}));
  EXPECT_EQ(torchrun_command(kValues, {"python", "-m", "pkg.train", "-x"}),
            with_prefix({"-m", "pkg.train", "-x"}));
}

TEST(TorchrunCommand, AnythingElseRunsAsIsWithNoPython) {
  EXPECT_EQ(torchrun_command(kValues, {"bash", "run.sh"}), with_prefix({"--no_python", "bash", "run.sh"}));
  EXPECT_EQ(torchrun_command(kValues, {"python3", "-u", "t.py"}),
            with_prefix({"--no_python", "python3", "-u", "t.py"}));
  EXPECT_EQ(torchrun_command(kValues, {"python3"}), with_prefix({"--no_python", "python3"}));
  EXPECT_EQ(torchrun_command(kValues, {"pythonic", "x"}), with_prefix({"--no_python", "pythonic", "x"}));
}

TEST(TorchrunCommand, DollarsAreDoubled) {
  EXPECT_EQ(escape_dollars("$HOME ${X} $(Y) $$"), "$$HOME $${X} $$(Y) $$$$");
  EXPECT_EQ(escape_dollars(Argv{"a$", "b"}), (Argv{"a$$", "b"}));
}

}  // namespace
}  // namespace muster::gen
