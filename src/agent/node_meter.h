// NodeMeter: the node's figures over each sampling interval (telemetry/samples.h NodeFigures) and each rank
// process's (ProcessMeter), read from /proc and the CPU cgroup files and turned into rates by differences between
// two readings. Reads a few small files per interval (about 0.2 ms of CPU), never blocks (they are kernel files),
// and a file that cannot be read leaves its figure unmeasured: a missing counter is a fact, not an error.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "telemetry/proc_stats.h"
#include "telemetry/samples.h"

namespace muster::agent {

// Where a process's CPU cgroup keeps its files on this node, and what it says.
struct CpuCgroup {
  std::string path;       // "/slurm/job_4/step_0" (as /proc/<pid>/cgroup names it)
  std::string dir;        // the directory holding its cpu.stat, empty when not visible here
  bool v2 = false;
  std::optional<uint32_t> quota_permille;  // its limit, when it has one
};
CpuCgroup cpu_cgroup_of(int pid);  // pid 0: this process
std::optional<uint64_t> cgroup_throttled_us(const CpuCgroup& cgroup);

class NodeMeter {
 public:
  NodeMeter();
  // The interface whose traffic counts as the job's (net figures are unmeasured until one is set).
  void set_interface(const std::string& name) { interface_ = name; }
  const std::string& interface() const { return interface_; }
  // The figures since the last call (the first call only takes the baseline: rates stay unmeasured).
  // `ranks_cpu_ticks`: the job's ranks' CPU time in this interval (for other_cpu).
  telemetry::NodeFigures sample(int64_t now_ms, uint64_t ranks_cpu_ticks);

 private:
  std::optional<telemetry::CpuTimes> cpu_;
  std::optional<telemetry::SwapCounts> swap_;
  std::optional<telemetry::NetCounts> net_;
  std::optional<telemetry::DiskCounts> disk_;
  std::optional<uint64_t> throttled_us_;
  int64_t last_ms_ = 0;
  std::string interface_;
  std::set<std::string> disks_;
  CpuCgroup own_cgroup_;
  long ticks_per_s_;
  uint32_t cpus_;
};

// One rank process's CPU time, run-queue wait and CPU cgroup throttling between two readings.
class ProcessMeter {
 public:
  explicit ProcessMeter(int pid, const std::string& agent_cgroup_path);
  int pid() const { return pid_; }
  // Fills the process figures of `sample` (cpu, runq, throttled, quota, rss, the own-cgroup flag); returns the
  // CPU ticks used since the last call (0 the first time). `notes` gets "cgroup <rank> <path>" for a rank moved
  // to another CPU cgroup than its agent's.
  uint64_t sample(int64_t now_ms, telemetry::RankSample& sample, std::vector<std::string>& notes);

 private:
  int pid_;
  std::string agent_cgroup_;
  std::optional<uint64_t> ticks_, runq_ns_, throttled_us_;
  int64_t last_ms_ = 0;
  int64_t cgroup_checked_ms_ = -1;
  CpuCgroup cgroup_;
};

}  // namespace muster::agent
