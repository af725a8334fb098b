// What an agent measures once a second (docs/design/telemetry.md): its node's figures, each rank's step timing
// and process figures, each GPU's. Plain data; the only code here turns them into the protocol's Telemetry frame
// and back (records of u32s whose positions are the field lists below, listed once per type, so encoder and
// decoder cannot disagree, and a record from a newer agent with more fields still decodes).
//
// Units are chosen to fit a u32 and to be exact enough: times in microseconds, shares in permille (1000 = the
// whole interval; for CPU figures of a process, 1000 = one core busy), memory in MiB, rates per second.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/messages.h"
#include "util/result.h"

namespace muster::telemetry {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;  // a figure not measured (no cgroup file, no GPU, ...)

// Where a rank's steps came from, best first (a rank's figures come from the best source it has).
enum class StepSource : uint32_t {
  none = 0,
  hook = 1,     // the injected Python hook: optimizer steps, with the time waited in collectives
  marker = 2,   // the program wrote "step" lines to $MUSTER_STEP_FILE
  pattern = 3,  // an output line matched launch --step-pattern
  tqdm = 4,     // tqdm's progress counter (n/total ... it/s)
};
const char* step_source_name(StepSource source);

// RankSample::flags
inline constexpr uint32_t kRankOwnCgroup = 1;  // its process is in another CPU cgroup than its agent (moved there)
inline constexpr uint32_t kRankStepsCounted = 2;  // its steps are counted (the hook saw an optimizer made, or it stepped)

struct RankSample {
  uint32_t rank = 0;
  uint32_t source = 0;         // StepSource
  uint32_t steps = 0;          // steps finished in the interval
  uint32_t total_steps = 0;    // since the process started (mod 2^32)
  uint32_t step_p50_us = 0;    // median time of the interval's steps (0: no step, or only a count: tqdm)
  uint32_t step_p95_us = 0;
  uint32_t step_mean_us = 0;   // mean step time (from the count alone when there are no per-step times)
  uint32_t compute_us = 0;     // mean per step of step time minus wait: the rank's own work
  uint32_t wait_us = kNone;    // mean per step of the time blocked on the other ranks (kNone: not measured)
  uint32_t cpu_permille = kNone;        // its process's CPU time (1000 = one core)
  uint32_t runq_permille = kNone;       // its threads' time runnable but not running (summed, 1000 = one thread)
  uint32_t throttled_permille = kNone;  // share of the interval its CPU cgroup was throttled
  uint32_t quota_permille = kNone;      // its CPU cgroup's limit (1000 = one core), kNone: no limit
  uint32_t rss_mib = kNone;
  uint32_t gpu = kNone;        // index (nvidia-smi's) of the GPU it uses: CUDA_VISIBLE_DEVICES and LOCAL_RANK
  uint32_t pid = 0;
  uint32_t flags = 0;          // kRank*
  template <typename Self, typename Visit>
  static void fields(Self& s, Visit& v) {
    v(s.rank), v(s.source), v(s.steps), v(s.total_steps), v(s.step_p50_us), v(s.step_p95_us), v(s.step_mean_us),
        v(s.compute_us), v(s.wait_us), v(s.cpu_permille), v(s.runq_permille), v(s.throttled_permille),
        v(s.quota_permille), v(s.rss_mib), v(s.gpu), v(s.pid), v(s.flags);
  }
  bool operator==(const RankSample&) const = default;
};

// GpuSample::throttle: nvidia-smi's clocks_throttle_reasons.active bits (NVML's nvmlClocksThrottleReason*).
inline constexpr uint32_t kThrottleGpuIdle = 0x1;
inline constexpr uint32_t kThrottleAppClocks = 0x2;
inline constexpr uint32_t kThrottleSwPowerCap = 0x4;
inline constexpr uint32_t kThrottleHwSlowdown = 0x8;
inline constexpr uint32_t kThrottleSyncBoost = 0x10;
inline constexpr uint32_t kThrottleSwThermal = 0x20;
inline constexpr uint32_t kThrottleHwThermal = 0x40;
inline constexpr uint32_t kThrottleHwPowerBrake = 0x80;
// The reasons that slow a busy GPU down (idle and application clocks are settings, not trouble).
inline constexpr uint32_t kThrottleTrouble = kThrottleSwPowerCap | kThrottleHwSlowdown | kThrottleSwThermal |
                                             kThrottleHwThermal | kThrottleHwPowerBrake;
std::string throttle_reasons_text(uint32_t bits);

struct GpuSample {
  uint32_t index = 0;
  uint32_t util_pct = kNone;
  uint32_t mem_used_mib = kNone;
  uint32_t mem_total_mib = kNone;
  uint32_t power_dw = kNone;        // tenths of a watt
  uint32_t power_limit_dw = kNone;
  uint32_t temp_c = kNone;
  uint32_t sm_mhz = kNone;
  uint32_t sm_max_mhz = kNone;
  uint32_t throttle = 0;            // kThrottle* bits
  uint32_t ecc_uncorrected = kNone;  // volatile uncorrected ECC errors
  uint32_t other_processes = 0;     // compute processes on it that are not this job's
  uint32_t xid = 0;                 // the last new XID error reported for it (0: none)
  template <typename Self, typename Visit>
  static void fields(Self& s, Visit& v) {
    v(s.index), v(s.util_pct), v(s.mem_used_mib), v(s.mem_total_mib), v(s.power_dw), v(s.power_limit_dw),
        v(s.temp_c), v(s.sm_mhz), v(s.sm_max_mhz), v(s.throttle), v(s.ecc_uncorrected), v(s.other_processes),
        v(s.xid);
  }
  bool operator==(const GpuSample&) const = default;
};

struct NodeFigures {
  uint32_t cpus = 0;                   // online CPUs
  uint32_t cpu_busy_permille = kNone;  // of all CPUs' time: everything but idle and iowait
  uint32_t cpu_steal_permille = kNone;
  uint32_t cpu_iowait_permille = kNone;
  uint32_t other_cpu_permille = kNone;  // busy time not spent by the job's ranks (1000 = one core)
  uint32_t throttled_permille = kNone;  // the agent's own CPU cgroup (the job's, unless a rank was moved)
  uint32_t mem_total_mib = kNone;
  uint32_t mem_available_mib = kNone;
  uint32_t swap_total_mib = kNone;
  uint32_t swap_free_mib = kNone;
  uint32_t swap_in_pages = kNone;   // per second
  uint32_t swap_out_pages = kNone;  // per second
  uint32_t load1_centi = kNone;     // 1-minute load average x 100
  uint32_t net_rx_kib = kNone;      // KiB/s on the job's interface
  uint32_t net_tx_kib = kNone;
  uint32_t disk_read_kib = kNone;   // KiB/s, whole disks
  uint32_t disk_write_kib = kNone;
  uint32_t disk_busy_permille = kNone;  // the busiest disk's share of time doing I/O
  template <typename Self, typename Visit>
  static void fields(Self& s, Visit& v) {
    v(s.cpus), v(s.cpu_busy_permille), v(s.cpu_steal_permille), v(s.cpu_iowait_permille), v(s.other_cpu_permille),
        v(s.throttled_permille), v(s.mem_total_mib), v(s.mem_available_mib), v(s.swap_total_mib),
        v(s.swap_free_mib), v(s.swap_in_pages), v(s.swap_out_pages), v(s.load1_centi), v(s.net_rx_kib),
        v(s.net_tx_kib), v(s.disk_read_kib), v(s.disk_write_kib), v(s.disk_busy_permille);
  }
  bool operator==(const NodeFigures&) const = default;
};

// One agent's report for one interval.
struct NodeSample {
  int64_t unix_ms = 0;
  uint32_t interval_ms = 0;
  NodeFigures node;
  std::vector<RankSample> ranks;
  std::vector<GpuSample> gpus;
  std::vector<std::string> notes;  // "net eth0", "gpu none: nvidia-smi not found", "xid 0 79 ...", "cgroup 3 /x"
  bool operator==(const NodeSample&) const = default;
};

protocol::Telemetry to_message(const NodeSample& sample);
NodeSample from_message(const protocol::Telemetry& message);

// How many u32 fields a record type has (its field list's length).
template <typename T>
constexpr uint32_t field_count() {
  uint32_t n = 0;
  T value{};
  auto count = [&n](const uint32_t&) { ++n; };
  T::fields(value, count);
  return n;
}

// A permille share of `part` in `whole` (kNone when whole is 0), clamped to what a u32 holds.
uint32_t permille(uint64_t part, uint64_t whole);

}  // namespace muster::telemetry
