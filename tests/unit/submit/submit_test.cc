#include "submit/submit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace muster::submit {
namespace {

namespace fs = std::filesystem;

class SubmitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("muster-submit-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);  // the self-binary hash cache stays in here
  }
  void TearDown() override {
    unsetenv("XDG_CACHE_HOME");
    fs::remove_all(dir_);
  }
  SubmitOptions options() const {
    SubmitOptions options;
    options.nodes = 2;
    options.workers = 4;
    options.run_dir = (dir_ / "runs" / "{job_id}").string();
    options.job_id = "20260101-000000-abcdef";
    options.dry_run = true;
    options.command = {"python3", "train.py"};
    options.command_line = "muster submit -N 2 -- python3 train.py";
    return options;
  }
  fs::path dir_;
};

TEST_F(SubmitTest, DryRunWritesThePrivateScriptAndSubmitsNothing) {
  auto submit = options();
  submit.sbatch_options = {"--qos=high"};
  testing::internal::CaptureStdout();
  auto code = run_submit(submit);
  std::string printed = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_EQ(*code, 0);
  fs::path run_dir = dir_ / "runs" / "20260101-000000-abcdef";
  fs::path script = run_dir / "train.sbatch";
  ASSERT_TRUE(fs::exists(script));
  std::stringstream text;
  text << std::ifstream(script).rdbuf();
  EXPECT_EQ(printed, text.str());
  EXPECT_NE(text.str().find("#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("#SBATCH --output=" + run_dir.string() + "/slurm-%j.out\n"), std::string::npos);
  EXPECT_NE(text.str().find("#SBATCH --qos=high\n"), std::string::npos);
  EXPECT_NE(text.str().find("launch --transport slurm --nproc-per-node 4 --run-dir " + run_dir.string() +
                            " --job-id 20260101-000000-abcdef -- python3 train.py"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(fs::status(script).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::status(run_dir).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST_F(SubmitTest, OptionsMusterSetsItselfAreRefusedBeforeAnythingIsWritten) {
  for (const char* reserved : {"--output=x.out", "--nodes=4", "-J", "--wait"}) {
    auto submit = options();
    submit.sbatch_options = {reserved};
    auto code = run_submit(submit);
    ASSERT_FALSE(code) << reserved;
    EXPECT_EQ(code.error().kind, ErrorKind::usage) << reserved;
  }
  EXPECT_FALSE(fs::exists(dir_ / "runs"));
}

}  // namespace
}  // namespace muster::submit
