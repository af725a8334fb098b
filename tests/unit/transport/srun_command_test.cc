#include "transport/srun_command.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace muster::transport {
namespace {

using Words = std::vector<std::string>;

bool has(const Words& words, const std::string& word) { return std::find(words.begin(), words.end(), word) != words.end(); }

// The words between the first `--` and the command: what runs in the step before the agent.
Words step_prefix(const Words& argv, const Words& command) {
  auto dashes = std::find(argv.begin(), argv.end(), "--");
  EXPECT_NE(dashes, argv.end());
  return Words(dashes + 1, argv.end() - static_cast<long>(command.size()));
}

// `-u NAME` pairs of an `env` prefix.
bool unsets(const Words& words, const std::string& name) {
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "-u" && words[i + 1] == name) return true;
  }
  return false;
}

TEST(SrunCommand, OneOverlappingUnbufferedTaskOnTheNamedNode) {
  Words command = {"sh", "-c", "echo hi"};
  auto argv = srun_argv("gpu07", {}, command);
  auto srun = std::find(argv.begin(), argv.end(), "srun");
  ASSERT_NE(srun, argv.end());
  Words options(srun, std::find(argv.begin(), argv.end(), "--"));
  for (const char* option : {"--overlap", "--nodes=1", "--ntasks=1", "--ntasks-per-node=1", "--unbuffered",
                             "--mpi=none", "--export=ALL", "--nodelist=gpu07"}) {
    EXPECT_TRUE(has(options, option)) << option;
  }
  // Never --exact or -c: either would shrink the step (and the workers) to one CPU.
  EXPECT_FALSE(std::any_of(options.begin(), options.end(), [](const std::string& w) {
    return w == "--exact" || w.starts_with("--cpus-per-task") || w == "-c";
  }));
  EXPECT_TRUE(std::equal(command.begin(), command.end(), argv.end() - 3));  // the command, untouched, last
}

TEST(SrunCommand, SrunRunsWithoutTheJobsStepShapingVariables) {
  auto argv = srun_argv("n1", {}, {"true"});
  Words before(argv.begin(), std::find(argv.begin(), argv.end(), "srun"));
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(before.front(), "env");
  for (const char* name : {"SLURM_CPUS_PER_TASK", "SLURM_NTASKS_PER_NODE", "SLURM_MEM_PER_CPU", "SLURM_EXACT"}) {
    EXPECT_TRUE(unsets(before, name)) << name;
  }
}

TEST(SrunCommand, TheAgentLosesItsStepVariablesAndGetsTheJobsBack) {
  Words command = {"sh", "-c", "x"};
  std::map<std::string, std::string> head = {{"SLURM_JOB_NAME", "train $1 'x'"}, {"SLURM_CPUS_PER_TASK", "8"},
                                             {"SLURM_PROCID", "0"}, {"HOME", "/h"}};
  auto prefix = step_prefix(srun_argv("n1", head, command), command);
  ASSERT_FALSE(prefix.empty());
  EXPECT_EQ(prefix.front(), "env");
  for (const char* name : {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS", "SLURM_NNODES",
                           "SLURM_STEP_ID", "SLURM_TASKS_PER_NODE", "SLURM_STEP_NODELIST"}) {
    EXPECT_TRUE(unsets(prefix, name)) << name;
  }
  // Job-level values given back exactly (no shell: metacharacters need no quoting); the rest of the head's
  // environment travels through --export=ALL, not here.
  EXPECT_TRUE(has(prefix, "SLURM_JOB_NAME=train $1 'x'"));
  EXPECT_TRUE(has(prefix, "SLURM_CPUS_PER_TASK=8"));
  EXPECT_FALSE(has(prefix, "SLURM_PROCID=0"));
  EXPECT_FALSE(has(prefix, "HOME=/h"));
  EXPECT_FALSE(unsets(prefix, "SLURM_JOB_NAME"));
  EXPECT_FALSE(unsets(prefix, "SLURM_JOB_ID"));
  EXPECT_FALSE(unsets(prefix, "SLURM_JOB_NODELIST"));
}

TEST(SrunCommand, WithoutAJobNameTheStepNameIsNotPassedOnAsOne) {
  Words command = {"true"};
  auto prefix = step_prefix(srun_argv("n1", {}, command), command);
  EXPECT_TRUE(unsets(prefix, "SLURM_JOB_NAME"));  // else the workers would see srun's "muster-agent"
}

TEST(SrunCommand, BootstrapWordsCarryTheScriptAndAgentArgsUnquoted) {
  SelfBinary binary{"/x/muster", "0123456789abcdef", 42, std::string(64, 'e')};
  auto words = bootstrap_words(binary, {"--nonce", "a b"});
  ASSERT_EQ(words.size(), 9u);
  EXPECT_EQ(words[0], "sh");
  EXPECT_EQ(words[1], "-c");
  EXPECT_NE(words[2].find("MUSTER-UPLOAD"), std::string::npos);
  EXPECT_EQ((Words{words.begin() + 3, words.end()}),
            (Words{"muster-bootstrap", "0123456789abcdef", "42", std::string(64, 'e'), "--nonce", "a b"}));
}

}  // namespace
}  // namespace muster::transport
