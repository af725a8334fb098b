// StepFilesDir: the agent's step files in node-local memory, a directory of its own that goes with it, and the
// directories of agents that are gone removed by the next one.
#include "agent/step_files_dir.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "posix/file.h"

namespace muster::agent {
namespace {

class StepFilesDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("muster-stepdir-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "shm");
    std::filesystem::create_directories(root_ / "state");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string shm() const { return (root_ / "shm").string(); }
  std::string parent() const { return shm() + "/muster-" + std::to_string(posix::effective_uid()); }
  std::filesystem::path root_;
};

TEST_F(StepFilesDirTest, AnAgentsOwnDirectoryInMemoryGoesWithIt) {
  std::string path;
  {
    StepFilesDir dir = StepFilesDir::make("", shm(), posix::effective_uid(), (root_ / "state").string());
    EXPECT_TRUE(dir.in_memory());
    path = dir.path();
    EXPECT_EQ(0u, path.rfind(parent() + "/a-", 0)) << path;
    EXPECT_TRUE(std::filesystem::is_directory(path));
    EXPECT_EQ(std::filesystem::perms::owner_all,
              std::filesystem::status(parent()).permissions() & std::filesystem::perms::all);
    std::ofstream(path + "/ring-1") << "x";
    StepFilesDir moved = std::move(dir);  // the move keeps the directory; only the last owner removes it
    EXPECT_TRUE(std::filesystem::exists(path + "/ring-1"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(StepFilesDirTest, AGoneAgentsDirectoryIsRemovedALiveOnesIsNot) {
  StepFilesDir live = StepFilesDir::make("", shm(), posix::effective_uid(), "");
  std::filesystem::create_directories(parent() + "/a-crashed");
  std::ofstream(parent() + "/a-crashed/.lock");
  std::ofstream(parent() + "/a-crashed/ring-7") << "left by an agent killed with -9";
  std::filesystem::create_directories(parent() + "/other");  // not an agent's: left alone
  // Looked for at most every 10 minutes: the first make() looked a moment ago, so the next one does not.
  StepFilesDir soon = StepFilesDir::make("", shm(), posix::effective_uid(), "");
  EXPECT_TRUE(std::filesystem::exists(parent() + "/a-crashed"));
  std::filesystem::last_write_time(parent() + "/.pruned",
                                   std::filesystem::file_time_type::clock::now() - std::chrono::minutes(11));
  StepFilesDir next = StepFilesDir::make("", shm(), posix::effective_uid(), "");
  EXPECT_FALSE(std::filesystem::exists(parent() + "/a-crashed"));
  EXPECT_TRUE(std::filesystem::exists(live.path()));
  EXPECT_TRUE(std::filesystem::exists(parent() + "/other"));
  EXPECT_NE(live.path(), next.path());
}

TEST_F(StepFilesDirTest, XdgRuntimeDirFirstThenTheFallbackWhenNoPlaceIsUsable) {
  std::filesystem::create_directories(root_ / "run");
  StepFilesDir runtime = StepFilesDir::make((root_ / "run").string(), shm(), posix::effective_uid(), "");
  EXPECT_EQ(0u, runtime.path().rfind((root_ / "run" / "muster" / "a-").string(), 0)) << runtime.path();
  // Neither place exists (no tmpfs in a minimal container): the job's state directory, not removed by the agent.
  std::string state = (root_ / "state").string();
  {
    StepFilesDir none = StepFilesDir::make((root_ / "absent").string(), (root_ / "none").string(),
                                           posix::effective_uid(), state);
    EXPECT_FALSE(none.in_memory());
    EXPECT_EQ(state, none.path());
  }
  EXPECT_TRUE(std::filesystem::is_directory(state));
}

}  // namespace
}  // namespace muster::agent
