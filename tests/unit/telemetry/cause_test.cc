#include "telemetry/cause.h"

#include <gtest/gtest.h>

namespace muster::telemetry {
namespace {

std::string first(const CauseFacts& facts) { return likely_causes(facts).front(); }

TEST(LikelyCause, CgroupThrottling) {
  CauseFacts f;
  f.rank_throttled = 41;
  f.rank_quota = 0.2;
  f.rank_runq = 60;
  f.own_cgroup = true;
  f.cgroup = "cpu:/muster-slow";
  auto causes = likely_causes(f);
  ASSERT_EQ(causes.size(), 1u);  // its run-queue wait is the throttling's, not another cause
  EXPECT_EQ(causes[0], "its CPU cgroup cpu:/muster-slow limits it to 0.20 CPU and throttled it 41 % of the time");
}

TEST(LikelyCause, MovedToALimitedCgroupWhoseFilesAreNotVisible) {
  CauseFacts f;
  f.own_cgroup = true;
  f.cgroup = "cpu:/slow";
  f.rank_runq = 70;
  f.median_runq = 5;
  auto causes = likely_causes(f);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0], "it was moved to another CPU cgroup than the job's (cpu:/slow), and it waits for a CPU 70 % of "
                       "the time (the others: 5 %): that cgroup's CPU limit, most likely");
}

TEST(LikelyCause, AnotherProcessOnItsCpus) {
  CauseFacts f;
  f.rank_runq = 48;
  f.median_runq = 6;
  f.node_other_cpu = 97;
  EXPECT_EQ(first(f), "it waits for a CPU 48 % of the time (the others: 6 %): another process on its CPUs (processes "
                      "outside the job use 97 % of a core on its node)");
  f.median_runq = 30;  // everybody waits: not this rank's own trouble
  EXPECT_EQ(first(f).find("waits"), std::string::npos);
}

TEST(LikelyCause, StealSwapAndNetwork) {
  CauseFacts f;
  f.node_steal = 12;
  f.node_swap_pages = 300;
  f.node_net_mbs = 20;
  f.median_net_mbs = 900;
  auto causes = likely_causes(f);
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0], "the hypervisor steals 12 % of its node's CPU time");
  EXPECT_EQ(causes[1], "its node is swapping (300 pages/s)");
  EXPECT_NE(causes[2].find("20.0 MB/s against 900.0 MB/s"), std::string::npos);
}

TEST(LikelyCause, HotGpuAndAnotherProcessOnIt) {
  CauseFacts f;
  GpuSample g;
  g.index = 3;
  g.util_pct = 99;
  g.sm_mhz = 1110;
  g.sm_max_mhz = 1410;
  g.temp_c = 88;
  g.throttle = kThrottleSwThermal | kThrottleHwThermal | kThrottleGpuIdle;
  g.other_processes = 1;
  f.gpu = g;
  auto causes = likely_causes(f);
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0], "GPU 3 runs at 1110 of 1410 MHz (thermal (software), thermal (hardware)), 88 C");
  EXPECT_EQ(causes[1], "1 other process on its GPU 3");
}

TEST(LikelyCause, NothingFound) {
  EXPECT_NE(first(CauseFacts{}).find("nothing in its node's telemetry stands out"), std::string::npos);
}

}  // namespace
}  // namespace muster::telemetry
