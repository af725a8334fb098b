// The kernel's counters as /proc and the cgroup files print them, parsed. Pure: the agent's sampler reads the
// files (agent/telemetry_sampler.h) and these functions turn their text into numbers; the figures of an interval
// are differences of two readings (telemetry/node_meter.h). Unit-tested on recorded files; a field that is not
// there reads as 0 (or nullopt where "absent" must be told from 0).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace muster::telemetry {

// The first ("cpu ") line of /proc/stat, in USER_HZ ticks.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  uint64_t busy() const { return total() - idle - iowait; }
};
std::optional<CpuTimes> parse_proc_stat(std::string_view text);

// /proc/meminfo, in KiB.
struct MemInfo {
  uint64_t total_kib = 0, available_kib = 0, swap_total_kib = 0, swap_free_kib = 0;
};
std::optional<MemInfo> parse_meminfo(std::string_view text);

// /proc/vmstat's swap counters (pages since boot).
struct SwapCounts {
  uint64_t pswpin = 0, pswpout = 0;
};
SwapCounts parse_vmstat_swap(std::string_view text);

// /proc/loadavg's first figure.
std::optional<double> parse_loadavg(std::string_view text);

// One interface's byte counters from /proc/net/dev.
struct NetCounts {
  uint64_t rx_bytes = 0, tx_bytes = 0;
};
std::optional<NetCounts> parse_net_dev(std::string_view text, std::string_view interface);

// /proc/diskstats summed over `disks` (whole disks: /sys/block's names, without loop and ram devices), in 512-byte
// sectors, and the largest io_ticks (ms spent doing I/O) among them per disk.
struct DiskCounts {
  uint64_t read_sectors = 0, write_sectors = 0;
  std::map<std::string, uint64_t> io_ms;  // by disk
};
DiskCounts parse_diskstats(std::string_view text, const std::set<std::string>& disks);

// /proc/<pid>/stat: the process's CPU time (utime + stime, all threads, USER_HZ ticks), its resident set (pages)
// and its process group. The command name may hold spaces and parentheses: fields are counted after the last ')'.
struct ProcessStat {
  uint64_t cpu_ticks = 0;
  uint64_t rss_pages = 0;
  int pgrp = 0;
  int ppid = 0;
};
std::optional<ProcessStat> parse_pid_stat(std::string_view text);

// /proc/<pid>/task/<tid>/schedstat: "on-cpu-ns runqueue-wait-ns timeslices"; the wait (ns).
std::optional<uint64_t> parse_schedstat_wait(std::string_view text);

// /proc/<pid>/cgroup: the CPU controller's path: v1's "N:cpu,cpuacct:/path" (or "cpu"), else v2's "0::/path".
struct CgroupPath {
  std::string path;
  bool v2 = false;
};
std::optional<CgroupPath> parse_cpu_cgroup(std::string_view text);

// cpu.stat of a CPU cgroup: v1 "throttled_time" (ns), v2 "throttled_usec"; in microseconds either way.
std::optional<uint64_t> parse_cpu_stat_throttled_us(std::string_view text);

// The limit in permille of a core: v1 cpu.cfs_quota_us / cpu.cfs_period_us ("-1": none), v2 cpu.max ("max 100000"
// or "20000 100000"). nullopt: no limit.
std::optional<uint32_t> parse_cpu_quota_v1(std::string_view quota, std::string_view period);
std::optional<uint32_t> parse_cpu_max(std::string_view text);

// The interface whose IPv4 route reaches `address` (a dotted quad), from /proc/net/route: the most specific
// matching entry; empty when none matches or the address is not IPv4.
std::string route_interface(std::string_view proc_net_route, std::string_view address);

// The "Xid" lines the NVIDIA driver logs ("NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus"):
// the PCI bus id and the code; nullopt for any other line.
struct XidEvent {
  std::string pci;
  uint32_t code = 0;
  std::string text;  // the line from "Xid" on
};
std::optional<XidEvent> parse_xid_line(std::string_view line);

}  // namespace muster::telemetry
