#include "doctor/node/gather.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "posix/signals.h"
#include "posix/socket.h"

namespace muster::doctor {
namespace {

TEST(Gather, ThisMachine) {
  posix::SignalBlock signals;
  auto dir = std::filesystem::temp_directory_path() / "muster-gather-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "train.py") << "print('hi')\n";
  GatherOptions options;
  options.python = "/usr/bin/python3";
  options.paths = {dir.string(), "/nonexistent/muster-path"};
  options.resolve = {"localhost"};
  NodeFacts facts = gather(options);
  auto hostname = posix::hostname();
  ASSERT_TRUE(hostname);
  EXPECT_EQ(facts.hostname, *hostname);
  EXPECT_GT(facts.cpus, 0);
  EXPECT_GT(facts.memory_bytes, 0);
  EXPECT_FALSE(facts.kernel.empty());
  EXPECT_FALSE(facts.os_id.empty());
  EXPECT_GT(facts.clock_unix_ms, 1600000000000);
  EXPECT_NE(facts.memlock_bytes, -2);
  EXPECT_FALSE(facts.interfaces.empty());
  EXPECT_EQ(facts.python.path, "/usr/bin/python3");
  EXPECT_FALSE(facts.python.version.empty()) << facts.python.error;
  EXPECT_EQ(facts.python.packages.count("torch"), 1u) << facts.python.error;
  EXPECT_EQ(facts.python.torch_cuda_devices, -1);  // not imported by default: read from torch/version.py
  EXPECT_EQ(facts.python.torch_cuda, "");          // Debian's torch is a CPU build (version.py: cuda = None)
  EXPECT_EQ(facts.python.error, "");
  ASSERT_EQ(facts.resolves.count("localhost"), 1u);
  EXPECT_FALSE(facts.resolves.at("localhost").empty());
  ASSERT_EQ(facts.paths.size(), 2u);
  EXPECT_TRUE(facts.paths[0].exists);
  EXPECT_FALSE(facts.paths[0].fs_type.empty());
  EXPECT_EQ(facts.paths[0].files, 1);
  EXPECT_FALSE(facts.paths[0].content_hash.empty());
  EXPECT_FALSE(facts.paths[1].exists);
  std::filesystem::remove_all(dir);
}

TEST(Gather, ImportingTorchCountsItsDevices) {
  posix::SignalBlock signals;
  GatherOptions options;
  options.python = "/usr/bin/python3";
  options.import_torch = true;
  NodeFacts facts = gather(options);
  EXPECT_EQ(facts.python.torch_cuda_devices, 0) << facts.python.error;  // a CPU build sees no GPU
}

TEST(Gather, AMissingPythonIsReportedNotFatal) {
  posix::SignalBlock signals;
  GatherOptions options;
  options.python = "/nonexistent/python3";
  NodeFacts facts = gather(options);
  EXPECT_FALSE(facts.hostname.empty());
  EXPECT_NE(facts.python.error.find("/nonexistent/python3"), std::string::npos) << facts.python.error;
}

}  // namespace
}  // namespace muster::doctor
