// The likely cause of a straggler, from its telemetry (docs/design/telemetry.md, "Likely causes"): what its process,
// its node and its GPU show that the other ranks' do not. ByteDance's study of stragglers (OSDI'25) found most of
// them caused by something other than the hardware, so the node's view comes first: a CPU cgroup's limit, CPU
// stolen by a hypervisor, another process on its CPUs or GPU, swapping, low GPU clocks (heat, power), a slow NIC.
// Each rule names the figure it read and what it compared it with. Pure.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/samples.h"

namespace muster::telemetry {

// Averages over the straggler's window (NaN: not measured), and the same figures' medians over the other ranks
// and nodes of the job.
struct CauseFacts {
  double rank_cpu = NAN;        // % of a core
  double rank_runq = NAN;       // % of the time its threads waited for a CPU (summed over threads)
  double rank_throttled = NAN;  // % of the time its CPU cgroup was throttled
  double rank_quota = NAN;      // its CPU cgroup's limit in cores (NaN: none)
  bool own_cgroup = false;      // moved to another CPU cgroup than its agent's
  std::string cgroup;           // that cgroup's path, when known
  double node_steal = NAN;      // % of the node's CPU time
  double node_other_cpu = NAN;  // % of one core used outside the job on its node
  double node_swap_pages = NAN; // pages swapped in + out per second
  double node_net_mbs = NAN;    // rx + tx on the job's interface
  std::optional<GpuSample> gpu;  // its GPU's latest figures
  // The others'.
  double median_runq = NAN;
  double median_cpu = NAN;
  double median_net_mbs = NAN;
  double median_gpu_sm_mhz = NAN;
};

// The causes found, strongest first ("its CPU cgroup /slow limits it to 0.20 CPU and throttled it 41 % of the
// time"); one entry saying nothing was found when none applies.
std::vector<std::string> likely_causes(const CauseFacts& facts);

}  // namespace muster::telemetry
