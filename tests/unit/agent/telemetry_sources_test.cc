// The agent's telemetry sources on this machine: the step files and FIFO a worker gets (step_sources.h), read back
// as its ranks' figures; and the node's and a process's figures (node_meter.h) from the real /proc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "agent/node_meter.h"
#include "agent/step_sources.h"
#include "posix/clock.h"
#include "posix/environment.h"
#include "telemetry/step_ring.h"

namespace muster::agent {
namespace {

class StepSourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("muster-steps-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto loop = posix::EventLoop::create();
    ASSERT_TRUE(loop);
    loop_ = std::move(*loop);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::unique_ptr<posix::EventLoop> loop_;
};

TEST_F(StepSourcesTest, TheHooksRingMarkerLinesAndOutputPatterns) {
  StepSources sources(*loop_);
  auto pattern = telemetry::compile_step_pattern("^it ");
  ASSERT_TRUE(pattern);
  sources.configure(*pattern, true);
  std::vector<std::string> env{"PATH=/usr/bin"};
  ASSERT_TRUE(sources.prepare(dir_.string(), 7, env));
  std::string prefix = posix::find_variable(env, "MUSTER_STEPS_PREFIX").value_or("");
  std::string fifo = posix::find_variable(env, "MUSTER_STEP_FILE").value_or("");
  ASSERT_EQ(prefix, (dir_ / "steps/7/ring-").string());
  ASSERT_TRUE(std::filesystem::is_fifo(fifo));
  // The hook of a process that is rank 3: a first step (no time), then two with their waits.
  std::vector<char> ring;
  telemetry::step_ring_put(ring, 8, 3, 4242, telemetry::kStepRingWaitMeasured, {1, 0, 0, 0});
  telemetry::step_ring_put(ring, 8, 3, 4242, telemetry::kStepRingWaitMeasured, {2, 0, 100000, 30000});
  telemetry::step_ring_put(ring, 8, 3, 4242, telemetry::kStepRingWaitMeasured, {3, 0, 120000, 10000});
  std::ofstream(prefix + "4242", std::ios::binary).write(ring.data(), static_cast<std::streamsize>(ring.size()));
  // The marker: two steps of rank 9 (a launcher worker names its ranks), one of the worker's own rank.
  int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  std::string lines = "step rank=9\nstep rank=9 wait=0.25\nstep\nnot a step\n";
  ASSERT_EQ(::write(fd, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
  ::close(fd);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(loop_->run_once(20));
  sources.output(7, protocol::Stream::out, "it 1\nit 2\nother\n");
  auto ranks = sources.collect(posix::monotonic_ms(), 1000);
  std::map<uint32_t, telemetry::RankSample> by_rank;
  for (const auto& r : ranks) by_rank[r.sample.rank] = r.sample;
  ASSERT_EQ(by_rank.count(3), 1u);
  EXPECT_EQ(by_rank[3].source, static_cast<uint32_t>(telemetry::StepSource::hook));
  EXPECT_EQ(by_rank[3].steps, 3u);
  EXPECT_EQ(by_rank[3].total_steps, 3u);
  EXPECT_EQ(by_rank[3].step_mean_us, 110000u);
  EXPECT_EQ(by_rank[3].wait_us, 20000u);
  EXPECT_EQ(by_rank[3].compute_us, 90000u);
  ASSERT_EQ(by_rank.count(9), 1u);
  EXPECT_EQ(by_rank[9].source, static_cast<uint32_t>(telemetry::StepSource::marker));
  EXPECT_EQ(by_rank[9].steps, 2u);
  // Rank 7 (the worker's own): a marker line beats its output's pattern lines.
  ASSERT_EQ(by_rank.count(7), 1u);
  EXPECT_EQ(by_rank[7].source, static_cast<uint32_t>(telemetry::StepSource::marker));
  EXPECT_EQ(by_rank[7].steps, 1u);
  // The next interval: only what is new.
  ranks = sources.collect(posix::monotonic_ms(), 1000);
  for (const auto& r : ranks) EXPECT_EQ(r.sample.steps, 0u) << r.sample.rank;
  // A new attempt's worker of the same id: the old files go.
  std::vector<std::string> again;
  ASSERT_TRUE(sources.prepare(dir_.string(), 7, again));
  EXPECT_FALSE(std::filesystem::exists(prefix + "4242"));
  sources.forget(7);
  EXPECT_FALSE(std::filesystem::exists(fifo));
}

// The ring files are the worker's: a FIFO, a link or a huge file planted under the prefix is passed over, never
// read through, never waited for.
TEST_F(StepSourcesTest, WhatAWorkerPlantsUnderItsPrefixIsNotARing) {
  StepSources sources(*loop_);
  sources.configure(nullptr, false);
  std::vector<std::string> env;
  ASSERT_TRUE(sources.prepare(dir_.string(), 4, env));
  std::string prefix = posix::find_variable(env, "MUSTER_STEPS_PREFIX").value_or("");
  ASSERT_EQ(::mkfifo((prefix + "fifo").c_str(), 0600), 0);
  std::vector<char> ring;
  telemetry::step_ring_put(ring, 8, 4, 1, 0, {1, 0, 0, 0});
  telemetry::step_ring_put(ring, 8, 4, 1, 0, {2, 0, 5000, 0});
  std::ofstream((dir_ / "elsewhere").string(), std::ios::binary).write(ring.data(), static_cast<std::streamsize>(ring.size()));
  std::filesystem::create_symlink(dir_ / "elsewhere", prefix + "link");
  std::ofstream(prefix + "huge") << std::string(1 << 20, 'x');
  int64_t start = posix::monotonic_ms();
  auto ranks = sources.collect(start, 1000);
  EXPECT_LT(posix::monotonic_ms() - start, 1000);
  EXPECT_TRUE(ranks.empty());  // nothing counted: the link's target is a ring, but links are not followed
}

// The hook makes its ring when the process makes an optimizer, before any step: the rank is said to count its
// steps (once as news, for the sample of a worker that ends), with no step yet; a process without one says nothing.
TEST_F(StepSourcesTest, ARingWithNoStepYetSaysTheStepsAreCounted) {
  StepSources sources(*loop_);
  sources.configure(nullptr, false);
  std::vector<std::string> env;
  ASSERT_TRUE(sources.prepare(dir_.string(), 5, env));
  EXPECT_FALSE(sources.has_steps(5));
  std::string prefix = posix::find_variable(env, "MUSTER_STEPS_PREFIX").value_or("");
  std::vector<char> ring;
  telemetry::step_ring_put(ring, 8, 5, 77, 0, {1, 0, 0, 0});
  std::memset(ring.data() + 24, 0, 8);  // the count: no step yet (as the hook writes it when an optimizer is made)
  std::ofstream(prefix + "77", std::ios::binary).write(ring.data(), static_cast<std::streamsize>(ring.size()));
  EXPECT_TRUE(sources.has_steps(5));
  auto ranks = sources.collect(posix::monotonic_ms(), 1000);
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].sample.rank, 5u);
  EXPECT_EQ(ranks[0].sample.steps, 0u);
  EXPECT_EQ(ranks[0].sample.total_steps, 0u);
  EXPECT_EQ(ranks[0].sample.flags & telemetry::kRankStepsCounted, telemetry::kRankStepsCounted);
  EXPECT_TRUE(ranks[0].news);
  ranks = sources.collect(posix::monotonic_ms(), 1000);
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].sample.flags & telemetry::kRankStepsCounted, telemetry::kRankStepsCounted);
  EXPECT_FALSE(ranks[0].news);
}

TEST_F(StepSourcesTest, PatternStepsOfAWorkerWithoutAHook) {
  StepSources sources(*loop_);
  auto pattern = telemetry::compile_step_pattern("^iter \\d+");
  sources.configure(*pattern, false);
  std::vector<std::string> env;
  ASSERT_TRUE(sources.prepare(dir_.string(), 2, env));
  sources.output(2, protocol::Stream::err, "iter 1 loss 3\niter 2 loss 2\n");
  auto ranks = sources.collect(posix::monotonic_ms(), 2000);
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].sample.rank, 2u);
  EXPECT_EQ(ranks[0].sample.source, static_cast<uint32_t>(telemetry::StepSource::pattern));
  EXPECT_EQ(ranks[0].sample.steps, 2u);
  EXPECT_EQ(ranks[0].sample.step_mean_us, 1000000u);
  EXPECT_EQ(ranks[0].sample.wait_us, telemetry::kNone);
}

TEST(NodeMeter, FiguresOfThisMachine) {
  NodeMeter meter;
  meter.set_interface("lo");
  int64_t start = posix::monotonic_ms();
  auto first = meter.sample(start, 0);
  EXPECT_GE(first.cpus, 1u);
  EXPECT_EQ(first.cpu_busy_permille, telemetry::kNone);  // no interval yet
  EXPECT_NE(first.mem_total_mib, telemetry::kNone);
  volatile double spin = 0;
  while (posix::monotonic_ms() < start + 200) spin = spin + 1;
  auto second = meter.sample(posix::monotonic_ms(), 0);
  ASSERT_NE(second.cpu_busy_permille, telemetry::kNone);
  EXPECT_GT(second.cpu_busy_permille, 0u);  // this test spun a core
  EXPECT_LE(second.cpu_busy_permille, 1000u);
  EXPECT_NE(second.net_rx_kib, telemetry::kNone);
  EXPECT_NE(second.load1_centi, telemetry::kNone);
}

TEST(ProcessMeter, ThisProcessCpuAndItsOwnCgroup) {
  ProcessMeter meter(::getpid(), cpu_cgroup_of(0).path);
  telemetry::RankSample sample;
  std::vector<std::string> notes;
  int64_t start = posix::monotonic_ms();
  meter.sample(start, sample, notes);
  volatile double spin = 0;
  while (posix::monotonic_ms() < start + 300) spin = spin + 1;
  uint64_t ticks = meter.sample(posix::monotonic_ms(), sample, notes);
  EXPECT_GT(ticks, 0u);
  ASSERT_NE(sample.cpu_permille, telemetry::kNone);
  EXPECT_GT(sample.cpu_permille, 100u);  // spinning: most of a core, less on a loaded machine
  EXPECT_NE(sample.runq_permille, telemetry::kNone);
  EXPECT_NE(sample.rss_mib, telemetry::kNone);
  EXPECT_EQ(sample.flags & telemetry::kRankOwnCgroup, 0u);  // the same cgroup as "its agent" (this test)
  EXPECT_TRUE(notes.empty());
}

}  // namespace
}  // namespace muster::agent
