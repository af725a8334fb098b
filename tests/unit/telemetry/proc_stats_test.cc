#include "telemetry/proc_stats.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace muster::telemetry {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(MUSTER_TELEMETRY_FIXTURES) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

TEST(ProcStats, CpuLineOfProcStat) {
  auto t = parse_proc_stat("cpu  1058688 186608 201326 24380 645 0 3177 1432 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->user, 1058688u);
  EXPECT_EQ(t->idle, 24380u);
  EXPECT_EQ(t->steal, 1432u);
  EXPECT_EQ(t->busy(), 1058688u + 186608 + 201326 + 0 + 3177 + 1432);
  EXPECT_TRUE(parse_proc_stat(fixture("proc/stat")));
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3\n"));
}

TEST(ProcStats, MemoryAndSwap) {
  auto m = parse_meminfo(fixture("proc/meminfo"));
  ASSERT_TRUE(m);
  EXPECT_GT(m->total_kib, 0u);
  EXPECT_LE(m->available_kib, m->total_kib);
  auto s = parse_vmstat_swap("nr_free_pages 5\npswpin 17\npswpout 4\n");
  EXPECT_EQ(s.pswpin, 17u);
  EXPECT_EQ(s.pswpout, 4u);
  EXPECT_TRUE(parse_loadavg(fixture("proc/loadavg")));
  EXPECT_DOUBLE_EQ(*parse_loadavg("7.86 7.62 8.96 5/600 123\n"), 7.86);
}

TEST(ProcStats, InterfaceCounters) {
  std::string dev = fixture("proc/net_dev");
  auto lo = parse_net_dev(dev, "lo");
  ASSERT_TRUE(lo);
  EXPECT_GT(lo->rx_bytes, 0u);
  EXPECT_FALSE(parse_net_dev(dev, "nosuch0"));
  auto eth = parse_net_dev("  eth0: 100 2 0 0 0 0 0 0 300 4 0 0 0 0 0 0\n", "eth0");
  ASSERT_TRUE(eth);
  EXPECT_EQ(eth->rx_bytes, 100u);
  EXPECT_EQ(eth->tx_bytes, 300u);
}

TEST(ProcStats, WholeDisksOnly) {
  auto d = parse_diskstats(fixture("proc/diskstats"), {"vda"});
  EXPECT_EQ(d.read_sectors, 12449810u);
  EXPECT_EQ(d.write_sectors, 219489296u);
  EXPECT_EQ(d.io_ms.at("vda"), 284024u);
  EXPECT_EQ(d.io_ms.count("loop0"), 0u);
}

TEST(ProcStats, ProcessStatCountsFieldsAfterTheLastParenthesis) {
  auto real = parse_pid_stat(fixture("proc/pid_stat"));
  ASSERT_TRUE(real);
  EXPECT_EQ(real->pgrp, 14813);
  auto odd = parse_pid_stat("77 (python3 (x) y) S 1 77 77 0 -1 0 0 0 0 0 250 50 0 0 20 0 9 0 100 1000 4096 0\n");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->cpu_ticks, 300u);
  EXPECT_EQ(odd->rss_pages, 4096u);
  EXPECT_EQ(odd->ppid, 1);
  EXPECT_FALSE(parse_pid_stat("77 (cut"));
  EXPECT_EQ(*parse_schedstat_wait("324485 5970532 14\n"), 5970532u);
  EXPECT_TRUE(parse_schedstat_wait(fixture("proc/schedstat")));
}

TEST(ProcStats, CpuCgroupOfAProcess) {
  auto slurm = parse_cpu_cgroup(fixture("proc/cgroup_v1_slurm"));
  ASSERT_TRUE(slurm);
  EXPECT_EQ(slurm->path, "/slurm/uid_0/job_42/step_0");
  EXPECT_FALSE(slurm->v2);
  auto v2 = parse_cpu_cgroup(fixture("proc/cgroup_v2_only"));
  ASSERT_TRUE(v2);
  EXPECT_TRUE(v2->v2);
  EXPECT_EQ(v2->path, "/system.slice/muster-slow.scope");
  auto plain = parse_cpu_cgroup("4:memory:/x\n1:cpu:/muster-slow\n2:cpuacct:/\n0::/\n");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->path, "/muster-slow");
}

TEST(ProcStats, ThrottlingAndQuota) {
  EXPECT_EQ(*parse_cpu_stat_throttled_us(fixture("proc/cgroup_v1_cpu.stat")), 1069770874u / 1000);
  EXPECT_EQ(*parse_cpu_stat_throttled_us(fixture("proc/cgroup_v2_cpu.stat")), 54321987u);
  EXPECT_FALSE(parse_cpu_stat_throttled_us("usage_usec 5\n"));
  EXPECT_EQ(*parse_cpu_quota_v1(fixture("proc/cgroup_v1_cfs_quota_us"), fixture("proc/cgroup_v1_cfs_period_us")), 200u);
  EXPECT_FALSE(parse_cpu_quota_v1("-1\n", "100000\n"));
  EXPECT_EQ(*parse_cpu_max("150000 100000\n"), 1500u);
  EXPECT_FALSE(parse_cpu_max("max 100000\n"));
}

TEST(ProcStats, RouteToAnAddress) {
  std::string route = fixture("proc/net_route");
  EXPECT_EQ(route_interface(route, "192.0.2.7"), "eth0");  // 000200C0/00FFFFFF
  EXPECT_EQ(route_interface(route, "10.213.0.5"), "mtb0");
  EXPECT_EQ(route_interface(route, "8.8.8.8"), "eth0");    // the default route
  EXPECT_EQ(route_interface(route, "node1"), "");
  EXPECT_EQ(route_interface(route, "fe80::1"), "");
}

TEST(ProcStats, XidLines) {
  auto xid = parse_xid_line("[ 1234.5] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.");
  ASSERT_TRUE(xid);
  EXPECT_EQ(xid->pci, "0000:3b:00");
  EXPECT_EQ(xid->code, 79u);
  EXPECT_EQ(xid->text, "Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.");
  EXPECT_FALSE(parse_xid_line("NVRM: loading NVIDIA UNIX x86_64 Kernel Module"));
}

}  // namespace
}  // namespace muster::telemetry
