// How long per-job state stays on a node (run_state.h): the pure policy, the lock that keeps a directory in use,
// and the agent's end (worker_setup.h finish): gone when the job ended well here, kept when a worker failed or
// the head vanished.
#include "agent/run_state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "agent/worker_setup.h"
#include "protocol/messages.h"

namespace muster::agent {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kDay = int64_t{24} * 3600 * 1'000'000'000;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(RunStatePolicy, OldOnesGoAndOfThisNodesOnlyTheNewestStayNeverOneInUse) {
  int64_t now = 100 * kDay;
  std::vector<RunStateEntry> entries = {
      {"old", "n1", now - 15 * kDay, false},          // 0: too old
      {"old-busy", "n1", now - 30 * kDay, true},      // 1: too old, but in use
      {"other-old", "n2", now - 20 * kDay, false},    // 2: another node's, too old: goes too
      {"other-new", "n2", now - 1 * kDay, false},     // 3: another node's, young: its node's business
      {"a", "n1", now - 3 * kDay, false},             // 4
      {"b", "n1", now - 2 * kDay, false},             // 5
      {"c", "n1", now - 1 * kDay, false},             // 6
      {"d", "n1", now - 4 * kDay, true},              // 7: in use, not counted
  };
  PrunePolicy policy{14 * kDay, 2};
  EXPECT_EQ(entries_to_prune(entries, "n1", now, policy), (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(entries_to_prune(entries, "n2", now, policy), (std::vector<size_t>{0, 2}));
}

class RunStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster-run-state-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    setenv("XDG_STATE_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("XDG_STATE_HOME");
    fs::remove_all(dir_);
  }
  fs::path runs() const { return dir_ / "muster/runs"; }
  fs::path dir_;
};

TEST_F(RunStateTest, ADirectoryWhoseLockIsHeldIsNeverPruned) {
  for (const char* job : {"j1", "j2"}) {
    fs::create_directories(runs() / job / "n1");
    std::ofstream(runs() / job / "n1" / kInUseFile);
  }
  int held = ::open((runs() / "j1/n1" / kInUseFile).c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  prune_run_states(runs().string(), "n1", now_ns() + 100 * kDay);
  EXPECT_TRUE(fs::exists(runs() / "j1/n1"));
  EXPECT_FALSE(fs::exists(runs() / "j2"));  // the job's directory too, once empty
  ::close(held);
}

// A node looks at most every 10 minutes (its stamp's mtime), never while another of its agents is looking.
TEST_F(RunStateTest, ANodeLooksAtMostEveryTenMinutes) {
  fs::create_directories(runs());
  int64_t now = now_ns() + 100 * kDay;
  prune_run_states(runs().string(), "n1", now);  // nothing to prune yet; the look is stamped
  ASSERT_TRUE(fs::exists(runs() / ".pruned-n1"));
  fs::create_directories(runs() / "j1/n2");  // another node's, "20 days old" at the times below
  int64_t minute = int64_t{60} * 1'000'000'000;
  prune_run_states(runs().string(), "n1", now + minute);
  EXPECT_TRUE(fs::exists(runs() / "j1/n2"));
  prune_run_states(runs().string(), "n2", now + minute);  // another node name has its own stamp
  EXPECT_FALSE(fs::exists(runs() / "j1"));
  fs::create_directories(runs() / "j3/n2");
  int held = ::open((runs() / ".pruned-n1").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);  // another agent of n1 is looking
  prune_run_states(runs().string(), "n1", now + 11 * minute);
  EXPECT_TRUE(fs::exists(runs() / "j3/n2"));
  ::close(held);
  prune_run_states(runs().string(), "n1", now + 11 * minute);
  EXPECT_FALSE(fs::exists(runs() / "j3"));
  // A node name not seen for longer than the state is kept: its stamp goes too.
  EXPECT_TRUE(fs::exists(runs() / ".pruned-n2"));
  prune_run_states(runs().string(), "n1", now + 30 * kDay);
  EXPECT_FALSE(fs::exists(runs() / ".pruned-n2"));
  EXPECT_TRUE(fs::exists(runs() / ".pruned-n1"));
}

TEST_F(RunStateTest, TheAgentsEndRemovesAJobThatEndedWellKeepsAFailedOne) {
  WorkerSetup setup(41, "# hook\n", false);
  setup.set_node_name("n1");
  std::vector<std::string> env;
  auto good = setup.prepare("good", 0, protocol::kFeatureDiagnostics, env);
  ASSERT_TRUE(good) << good.error().message;
  auto bad = setup.prepare("bad", 0, protocol::kFeatureDiagnostics, env);
  ASSERT_TRUE(bad) << bad.error().message;
  std::ofstream(good->stacks_dir + "/1.stacks") << "stacks";
  EXPECT_TRUE(fs::exists(runs() / "good/n1" / kInUseFile));
  (void)setup.collect(*bad, 999999, false, 0, 0);  // a worker of "bad" failed
  setup.finish(false);
  EXPECT_FALSE(fs::exists(runs() / "good"));
  EXPECT_TRUE(fs::exists(runs() / "bad/n1/stacks"));

  WorkerSetup lost(41, "# hook\n", false);
  lost.set_node_name("n1");
  ASSERT_TRUE(lost.prepare("lost", 0, protocol::kFeatureDiagnostics, env));
  lost.finish(true);  // the head vanished: kept
  EXPECT_TRUE(fs::exists(runs() / "lost/n1"));
}

}  // namespace
}  // namespace muster::agent
