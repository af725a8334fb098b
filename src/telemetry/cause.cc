#include "telemetry/cause.h"

#include <cmath>

#include <fmt/core.h>

namespace muster::telemetry {
namespace {

bool known(double x) { return !std::isnan(x); }

void cpu_causes(const CauseFacts& f, std::vector<std::string>& out) {
  std::optional<size_t> cgroup_at;  // where "moved to another cgroup" was said
  if (known(f.rank_throttled) && f.rank_throttled >= 5) {
    std::string limit = known(f.rank_quota) ? fmt::format(" limits it to {:.2f} CPU and", f.rank_quota) : "";
    std::string where = f.cgroup.empty() ? "" : " " + f.cgroup;
    out.push_back(fmt::format("its CPU cgroup{}{} throttled it {:.0f} % of the time", where, limit, f.rank_throttled));
  } else if (f.own_cgroup) {
    cgroup_at = out.size();
    std::string limit = known(f.rank_quota) ? fmt::format(", limited to {:.2f} CPU", f.rank_quota) : "";
    out.push_back(fmt::format("it was moved to another CPU cgroup than the job's{}{}",
                              f.cgroup.empty() ? "" : " (" + f.cgroup + ")", limit));
  }
  if (known(f.node_steal) && f.node_steal >= 5) {
    out.push_back(fmt::format("the hypervisor steals {:.0f} % of its node's CPU time", f.node_steal));
  }
  bool waits = known(f.rank_runq) && f.rank_runq >= 10 &&
               (!known(f.median_runq) || f.rank_runq >= 2 * std::max(f.median_runq, 1.0));
  if (!waits || (known(f.rank_throttled) && f.rank_throttled >= 5)) return;
  std::string median = known(f.median_runq) ? fmt::format(" (the others: {:.0f} %)", f.median_runq) : "";
  if (cgroup_at) {  // its cgroup's files are not visible here (a container, a node's own mounts): its limit, likely
    out[*cgroup_at] += fmt::format(", and it waits for a CPU {:.0f} % of the time{}: that cgroup's CPU limit, most likely",
                              f.rank_runq, median);
    return;
  }
  std::string others = known(f.node_other_cpu) && f.node_other_cpu >= 10
                           ? fmt::format(": another process on its CPUs (processes outside the job use {:.0f} % of "
                                         "a core on its node)",
                                         f.node_other_cpu)
                           : ": another process on its CPUs, or a CPU limit";
  out.push_back(fmt::format("it waits for a CPU {:.0f} % of the time{}{}", f.rank_runq, median, others));
}

void gpu_causes(const CauseFacts& f, std::vector<std::string>& out) {
  if (!f.gpu) return;
  const GpuSample& g = *f.gpu;
  bool low_clock = g.sm_mhz != kNone && g.sm_max_mhz != kNone && g.sm_max_mhz > 0 &&
                   g.sm_mhz * 100 < g.sm_max_mhz * 85 && g.util_pct != kNone && g.util_pct >= 50;
  if (low_clock || (g.throttle & kThrottleTrouble) != 0) {
    std::string reasons = throttle_reasons_text(g.throttle & kThrottleTrouble);
    std::string temp = g.temp_c != kNone ? fmt::format(", {} C", g.temp_c) : "";
    out.push_back(fmt::format("GPU {} runs at {} of {} MHz{}{}", g.index, g.sm_mhz, g.sm_max_mhz,
                              reasons.empty() ? "" : " (" + reasons + ")", temp));
  }
  if (g.other_processes > 0) {
    out.push_back(fmt::format("{} other process{} on its GPU {}", g.other_processes,
                              g.other_processes == 1 ? "" : "es", g.index));
  }
  if (g.xid != 0) out.push_back(fmt::format("GPU {} reported XID {}", g.index, g.xid));
}

}  // namespace

std::vector<std::string> likely_causes(const CauseFacts& f) {
  std::vector<std::string> out;
  cpu_causes(f, out);
  gpu_causes(f, out);
  if (known(f.node_swap_pages) && f.node_swap_pages >= 1) {
    out.push_back(fmt::format("its node is swapping ({:.0f} pages/s)", f.node_swap_pages));
  }
  if (known(f.node_net_mbs) && known(f.median_net_mbs) && f.median_net_mbs >= 1 &&
      f.node_net_mbs < f.median_net_mbs / 2) {
    out.push_back(fmt::format("its node's network moves {:.1f} MB/s against {:.1f} MB/s on the others (a slow NIC "
                              "or link?)",
                              f.node_net_mbs, f.median_net_mbs));
  }
  if (out.empty()) {
    out.push_back("nothing in its node's telemetry stands out (its data or its own code: a larger batch, I/O in "
                  "the step?)");
  }
  return out;
}

}  // namespace muster::telemetry
