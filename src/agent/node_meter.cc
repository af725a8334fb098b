#include "agent/node_meter.h"

#include <algorithm>
#include <filesystem>

#include <fmt/core.h>

#include "posix/file.h"
#include "posix/system_info.h"

namespace muster::agent {
namespace {

using telemetry::kNone;
using telemetry::permille;

constexpr int64_t kCgroupRecheckMs = 5000;  // a rank may be moved to another cgroup at any time
constexpr size_t kMaxThreads = 256;         // threads of a rank whose run-queue wait is read

std::optional<std::string> read(const std::string& path) {
  auto text = posix::read_text_file(path);
  if (!text) return std::nullopt;
  return std::move(*text);
}

uint32_t clamp32(uint64_t value) { return static_cast<uint32_t>(std::min<uint64_t>(value, kNone - 1)); }

uint64_t delta(uint64_t now, uint64_t before) { return now >= before ? now - before : 0; }

// The whole disks: /sys/block's entries but loop and RAM devices.
std::set<std::string> whole_disks() {
  std::set<std::string> disks;
  for (const auto& path : posix::glob_paths("/sys/block/*")) {
    std::string name = std::filesystem::path(path).filename().string();
    if (name.starts_with("loop") || name.starts_with("ram")) continue;
    disks.insert(name);
  }
  return disks;
}

// Where the CPU cgroup hierarchy that holds `cgroup` is mounted: v1's cpu controller, or v2's tree.
std::string cgroup_dir(const telemetry::CgroupPath& cgroup) {
  std::vector<std::string> roots = cgroup.v2 ? std::vector<std::string>{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}
                                             : std::vector<std::string>{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct",
                                                                        "/sys/fs/cgroup/cpuacct,cpu"};
  for (const auto& root : roots) {
    std::string dir = root + (cgroup.path == "/" ? "" : cgroup.path);
    if (posix::path_exists(dir + "/cpu.stat")) return dir;
  }
  return "";
}

}  // namespace

CpuCgroup cpu_cgroup_of(int pid) {
  CpuCgroup cgroup;
  auto text = read(pid == 0 ? "/proc/self/cgroup" : fmt::format("/proc/{}/cgroup", pid));
  if (!text) return cgroup;
  auto parsed = telemetry::parse_cpu_cgroup(*text);
  if (!parsed) return cgroup;
  cgroup.path = parsed->path;
  cgroup.v2 = parsed->v2;
  cgroup.dir = cgroup_dir(*parsed);
  if (cgroup.dir.empty()) return cgroup;
  if (cgroup.v2) {
    if (auto max = read(cgroup.dir + "/cpu.max")) cgroup.quota_permille = telemetry::parse_cpu_max(*max);
  } else {
    auto quota = read(cgroup.dir + "/cpu.cfs_quota_us");
    auto period = read(cgroup.dir + "/cpu.cfs_period_us");
    if (quota && period) cgroup.quota_permille = telemetry::parse_cpu_quota_v1(*quota, *period);
  }
  return cgroup;
}

std::optional<uint64_t> cgroup_throttled_us(const CpuCgroup& cgroup) {
  if (cgroup.dir.empty()) return std::nullopt;
  auto text = read(cgroup.dir + "/cpu.stat");
  if (!text) return std::nullopt;
  return telemetry::parse_cpu_stat_throttled_us(*text);
}

NodeMeter::NodeMeter()
    : disks_(whole_disks()),
      own_cgroup_(cpu_cgroup_of(0)),
      ticks_per_s_(posix::clock_ticks_per_second()),
      cpus_(static_cast<uint32_t>(posix::online_cpus())) {}

telemetry::NodeFigures NodeMeter::sample(int64_t now_ms, uint64_t ranks_cpu_ticks) {
  telemetry::NodeFigures f;
  f.cpus = cpus_;
  int64_t elapsed_ms = last_ms_ == 0 ? 0 : now_ms - last_ms_;
  last_ms_ = now_ms;
  if (auto text = read("/proc/stat")) {
    auto cpu = telemetry::parse_proc_stat(*text);
    if (cpu && cpu_ && cpu->total() > cpu_->total()) {
      uint64_t total = cpu->total() - cpu_->total();
      f.cpu_busy_permille = permille(delta(cpu->busy(), cpu_->busy()), total);
      f.cpu_steal_permille = permille(delta(cpu->steal, cpu_->steal), total);
      f.cpu_iowait_permille = permille(delta(cpu->iowait, cpu_->iowait), total);
      // Busy time in cores, less the ranks': what the node's other processes used (1000 = one core).
      double busy_cores = static_cast<double>(delta(cpu->busy(), cpu_->busy())) * cpus_ / static_cast<double>(total);
      double ranks_cores = elapsed_ms > 0 ? static_cast<double>(ranks_cpu_ticks) / ticks_per_s_ / (elapsed_ms / 1000.0) : 0;
      f.other_cpu_permille = static_cast<uint32_t>(std::max(0.0, busy_cores - ranks_cores) * 1000 + 0.5);
    }
    if (cpu) cpu_ = cpu;
  }
  if (auto throttled = cgroup_throttled_us(own_cgroup_)) {
    if (throttled_us_ && elapsed_ms > 0) f.throttled_permille = permille(delta(*throttled, *throttled_us_), uint64_t(elapsed_ms) * 1000);
    throttled_us_ = throttled;
  }
  if (auto text = read("/proc/meminfo")) {
    if (auto mem = telemetry::parse_meminfo(*text)) {
      f.mem_total_mib = clamp32(mem->total_kib / 1024);
      f.mem_available_mib = clamp32(mem->available_kib / 1024);
      f.swap_total_mib = clamp32(mem->swap_total_kib / 1024);
      f.swap_free_mib = clamp32(mem->swap_free_kib / 1024);
    }
  }
  double seconds = elapsed_ms / 1000.0;
  auto rate = [seconds](uint64_t amount) { return clamp32(static_cast<uint64_t>(static_cast<double>(amount) / seconds + 0.5)); };
  if (auto text = read("/proc/vmstat")) {
    auto swap = telemetry::parse_vmstat_swap(*text);
    if (swap_ && seconds > 0) {
      f.swap_in_pages = rate(delta(swap.pswpin, swap_->pswpin));
      f.swap_out_pages = rate(delta(swap.pswpout, swap_->pswpout));
    }
    swap_ = swap;
  }
  if (auto text = read("/proc/loadavg")) {
    if (auto load = telemetry::parse_loadavg(*text)) f.load1_centi = clamp32(static_cast<uint64_t>(*load * 100 + 0.5));
  }
  if (!interface_.empty()) {
    if (auto text = read("/proc/net/dev")) {
      auto net = telemetry::parse_net_dev(*text, interface_);
      if (net && net_ && seconds > 0) {
        f.net_rx_kib = rate(delta(net->rx_bytes, net_->rx_bytes) / 1024);
        f.net_tx_kib = rate(delta(net->tx_bytes, net_->tx_bytes) / 1024);
      }
      net_ = net;
    }
  }
  if (auto text = read("/proc/diskstats")) {
    auto disk = telemetry::parse_diskstats(*text, disks_);
    if (disk_ && seconds > 0) {
      f.disk_read_kib = rate(delta(disk.read_sectors, disk_->read_sectors) / 2);
      f.disk_write_kib = rate(delta(disk.write_sectors, disk_->write_sectors) / 2);
      uint64_t busiest = 0;
      for (const auto& [name, ms] : disk.io_ms) {
        auto before = disk_->io_ms.find(name);
        if (before != disk_->io_ms.end()) busiest = std::max(busiest, delta(ms, before->second));
      }
      f.disk_busy_permille = std::min<uint32_t>(1000, permille(busiest, static_cast<uint64_t>(elapsed_ms)));
    }
    disk_ = disk;
  }
  return f;
}

ProcessMeter::ProcessMeter(int pid, const std::string& agent_cgroup_path) : pid_(pid), agent_cgroup_(agent_cgroup_path) {}

uint64_t ProcessMeter::sample(int64_t now_ms, telemetry::RankSample& s, std::vector<std::string>& notes) {
  s.pid = static_cast<uint32_t>(pid_);
  int64_t elapsed_ms = last_ms_ == 0 ? 0 : now_ms - last_ms_;
  last_ms_ = now_ms;
  uint64_t used = 0;
  if (auto text = read(fmt::format("/proc/{}/stat", pid_))) {
    if (auto stat = telemetry::parse_pid_stat(*text)) {
      if (ticks_ && elapsed_ms > 0) {
        used = delta(stat->cpu_ticks, *ticks_);
        double ms = static_cast<double>(used) * 1000.0 / static_cast<double>(posix::clock_ticks_per_second());
        s.cpu_permille = clamp32(static_cast<uint64_t>(ms * 1000 / static_cast<double>(elapsed_ms) + 0.5));
      }
      ticks_ = stat->cpu_ticks;
      s.rss_mib = clamp32(stat->rss_pages * 4096 / (1024 * 1024));
    }
  }
  // Run-queue wait: summed over its threads (the first kMaxThreads).
  uint64_t wait_ns = 0;
  size_t threads = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid_), error)) {
    if (++threads > kMaxThreads) break;
    if (auto text = read(entry.path().string() + "/schedstat")) {
      wait_ns += telemetry::parse_schedstat_wait(*text).value_or(0);
    }
  }
  if (threads > 0) {
    if (runq_ns_ && elapsed_ms > 0) s.runq_permille = permille(delta(wait_ns, *runq_ns_) / 1000, uint64_t(elapsed_ms) * 1000);
    runq_ns_ = wait_ns;
  }
  if (cgroup_checked_ms_ < 0 || now_ms - cgroup_checked_ms_ >= kCgroupRecheckMs) {
    CpuCgroup now = cpu_cgroup_of(pid_);
    if (now.path != cgroup_.path) throttled_us_.reset();
    cgroup_ = std::move(now);
    cgroup_checked_ms_ = now_ms;
  }
  if (!cgroup_.path.empty() && cgroup_.path != agent_cgroup_) {
    s.flags |= telemetry::kRankOwnCgroup;
    notes.push_back(fmt::format("cgroup {} cpu:{}", s.rank, cgroup_.path));
  }
  if (cgroup_.quota_permille) s.quota_permille = *cgroup_.quota_permille;
  if (auto throttled = cgroup_throttled_us(cgroup_)) {
    if (throttled_us_ && elapsed_ms > 0) s.throttled_permille = permille(delta(*throttled, *throttled_us_), uint64_t(elapsed_ms) * 1000);
    throttled_us_ = throttled;
  }
  return used;
}

}  // namespace muster::agent
