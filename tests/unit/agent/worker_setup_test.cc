// What the agent prepares for a worker on its node (worker_setup.h): the job's private directory, the hook, the
// variables (a user's own value wins; PYTHONPATH gets the hook first), the flight recorder on GPU nodes only, and
// what it reads back when the worker ended.
#include "agent/worker_setup.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "posix/environment.h"
#include "protocol/messages.h"

namespace muster::agent {
namespace {

class WorkerSetupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("muster-worker-setup-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    setenv("XDG_STATE_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("XDG_STATE_HOME");
    std::filesystem::remove_all(dir_);
  }
  std::string value(const std::vector<std::string>& env, const std::string& name) {
    return posix::find_variable(env, name).value_or("<unset>");
  }
  std::filesystem::path dir_;
};

TEST_F(WorkerSetupTest, DiagnosticsSetTheWorkersVariablesUnlessTheUserDid) {
  WorkerSetup setup(41, "# hook\n", true);
  std::vector<std::string> env = {"PYTHONPATH=/mine", "PYTHONFAULTHANDLER=0", "PATH=/usr/bin"};
  auto paths = setup.prepare("job-1", 3, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, env);
  ASSERT_TRUE(paths.has_value()) << paths.error().message;
  std::string node_dir = job_node_dir("job-1");
  EXPECT_EQ(node_dir.rfind(dir_.string() + "/muster/runs/job-1/", 0), 0u) << node_dir;
  EXPECT_EQ(value(env, "PYTHONFAULTHANDLER"), "0");  // the user's
  EXPECT_EQ(value(env, "MUSTER_PROGRESS_FILE"), node_dir + "/progress-3");
  EXPECT_EQ(value(env, "TORCHELASTIC_ERROR_FILE"), node_dir + "/error-3.json");
  EXPECT_EQ(value(env, "MUSTER_STACKS_DIR"), node_dir + "/stacks");
  EXPECT_EQ(value(env, "MUSTER_STACKS_SIGNAL"), "41");
  std::string python_path = value(env, "PYTHONPATH");
  EXPECT_TRUE(python_path.ends_with(":/mine")) << python_path;
  std::string hook = python_path.substr(0, python_path.find(':'));
  std::ifstream installed(hook + "/sitecustomize.py");
  std::string text((std::istreambuf_iterator<char>(installed)), {});
  EXPECT_EQ(text, "# hook\n");
  EXPECT_EQ(value(env, "TORCH_NCCL_TRACE_BUFFER_SIZE"), "2000");
  EXPECT_EQ(value(env, "TORCH_NCCL_DUMP_ON_TIMEOUT"), "1");
  EXPECT_EQ(value(env, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"), node_dir + "/flight-recorder-3/nccl_trace_rank_");
  EXPECT_TRUE(std::filesystem::is_directory(node_dir + "/flight-recorder-3"));  // torch does not make it
  struct stat st {};
  ASSERT_EQ(::stat(node_dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(WorkerSetupTest, NoFlightRecorderWithoutGpusAndNothingWithoutDiagnostics) {
  WorkerSetup cpu(41, "# hook\n", false);
  std::vector<std::string> env;
  ASSERT_TRUE(cpu.prepare("j", 0, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, env).has_value());
  EXPECT_EQ(value(env, "TORCH_NCCL_TRACE_BUFFER_SIZE"), "<unset>");
  EXPECT_NE(value(env, "MUSTER_STACKS_DIR"), "<unset>");
  std::vector<std::string> plain;
  auto paths = cpu.prepare("j", 1, 0, plain);
  ASSERT_TRUE(paths.has_value());
  EXPECT_TRUE(plain.empty());
  EXPECT_TRUE(paths->error_file.empty());
}

TEST_F(WorkerSetupTest, CollectReadsTheErrorFileAndTheFlightRecordersDumps) {
  WorkerSetup setup(41, "# hook\n", true);
  std::vector<std::string> env;
  auto paths = setup.prepare("j2", 5, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, env);
  ASSERT_TRUE(paths.has_value());
  std::ofstream(paths->error_file) << R"({"message": {"message": "KeyError: 'x'"}})";
  std::string pickle("\x80\x02}q\x00(X\x07\x00\x00\x00version", 22);  // binary, as torch's dumps are
  std::ofstream(paths->flight_prefix + "5", std::ios::binary) << pickle;
  std::ofstream(paths->flight_prefix + "13", std::ios::binary) << "second rank of a launcher worker";
  // Another worker's dump on the same node, and the hook's temporary, are not this worker's.
  std::vector<std::string> other_env;
  auto other = setup.prepare("j2", 6, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, other_env);
  ASSERT_TRUE(other.has_value());
  std::ofstream(other->flight_prefix + "6") << "rank 6";
  std::ofstream(std::filesystem::path(paths->flight_prefix).parent_path() / ".nccl_trace_rank_5.77.tmp") << "half";
  auto notes = setup.collect(*paths, 999999, false, 0, 0);
  EXPECT_EQ(notes["error-file"], R"({"message": {"message": "KeyError: 'x'"}})");
  EXPECT_EQ(notes["flight-recorder"], paths->flight_prefix + "13\n" + paths->flight_prefix + "5");
  EXPECT_EQ(notes["flight-recorder-dump:nccl_trace_rank_5"], pickle);
  EXPECT_EQ(notes["flight-recorder-dump:nccl_trace_rank_13"], "second rank of a launcher worker");
  EXPECT_EQ(notes.count("flight-recorder-dump:nccl_trace_rank_6"), 0u);
  EXPECT_EQ(notes.count("flight-recorder-dump:.nccl_trace_rank_5.77.tmp"), 0u);
  // A new attempt sees neither the last one's exception nor its dumps.
  ASSERT_TRUE(setup.prepare("j2", 5, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, env).has_value());
  EXPECT_FALSE(std::filesystem::exists(paths->error_file));
  EXPECT_FALSE(std::filesystem::exists(paths->flight_prefix + "5"));
  EXPECT_EQ(setup.collect(*paths, 999999, false, 0, 0).count("flight-recorder"), 0u);
}

TEST_F(WorkerSetupTest, ADumpTooLargeToCarryStaysOnTheNodeAndIsNamed) {
  WorkerSetup setup(41, "# hook\n", true);
  std::vector<std::string> env;
  auto paths = setup.prepare("j3", 0, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, env);
  ASSERT_TRUE(paths.has_value());
  std::ofstream(paths->flight_prefix + "0") << std::string((8u << 20) + 1, 'x');
  std::ofstream(paths->flight_prefix + "1") << "small";
  auto notes = setup.collect(*paths, 999999, false, 0, 0);
  EXPECT_EQ(notes["flight-recorder"], paths->flight_prefix + "0\n" + paths->flight_prefix + "1");
  EXPECT_EQ(notes.count("flight-recorder-dump:nccl_trace_rank_0"), 0u);
  EXPECT_EQ(notes["flight-recorder-dump:nccl_trace_rank_1"], "small");
}

TEST_F(WorkerSetupTest, MusterNodeGpusOverridesTheDeviceCheck) {
  std::vector<std::string> env;
  setenv("MUSTER_NODE_GPUS", "1", 1);
  WorkerSetup gpu(41, "# hook\n");
  ASSERT_TRUE(gpu.prepare("j4", 0, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, env).has_value());
  EXPECT_NE(value(env, "TORCH_NCCL_DUMP_ON_TIMEOUT"), "<unset>");
  setenv("MUSTER_NODE_GPUS", "0", 1);
  WorkerSetup cpu(41, "# hook\n");
  std::vector<std::string> cpu_env;
  ASSERT_TRUE(cpu.prepare("j4", 1, protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder, cpu_env).has_value());
  EXPECT_EQ(value(cpu_env, "TORCH_NCCL_DUMP_ON_TIMEOUT"), "<unset>");
  unsetenv("MUSTER_NODE_GPUS");
}

TEST_F(WorkerSetupTest, AJobIdIsOnePathComponent) {
  EXPECT_EQ(job_node_dir("../../etc").find("/../"), std::string::npos);
  EXPECT_NE(job_node_dir("a/b").find("/runs/a_b/"), std::string::npos);
}

}  // namespace
}  // namespace muster::agent
