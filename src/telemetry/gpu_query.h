// nvidia-smi's query interface, as the agent's GPU monitor uses it (agent/gpu_monitor.h): the command lines, and
// their CSV output parsed. Pure; unit-tested on fixtures in nvidia-smi's documented format (no GPU on the machines
// the tests run on: see tests/unit/telemetry/fixtures/README.md for which outputs are recordings).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/samples.h"

namespace muster::telemetry {

// The fields of the per-second GPU query, in the order parse_gpu_line() reads them.
inline constexpr std::string_view kGpuQueryFields =
    "index,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,power.draw,power.limit,temperature.gpu,"
    "clocks.sm,clocks.max.sm,clocks_throttle_reasons.active,ecc.errors.uncorrected.volatile.total";

// `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits --loop-ms=<interval>`: one line per GPU per
// interval, for as long as it runs.
std::vector<std::string> gpu_query_argv(int interval_ms);
// `nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits`: once.
std::vector<std::string> compute_apps_argv();

struct GpuReading {
  GpuSample sample;
  std::string uuid;  // "GPU-8f6e…" (what CUDA_VISIBLE_DEVICES may name instead of an index)
  std::string pci;   // "00000000:3B:00.0"
};
// One line of the GPU query: "0, GPU-…, 00000000:3B:00.0, 97, 70123, 81559, 612.33, 700.00, 71, 1980, 1980,
// 0x0000000000000000, 0". "[N/A]" / "N/A" / "[Not Supported]" leave a figure unmeasured. nullopt when the line
// does not have the fields (a header, an error message).
std::optional<GpuReading> parse_gpu_line(std::string_view line);

struct ComputeApp {
  std::string uuid;
  int pid = 0;
  uint32_t used_mib = 0;
};
std::vector<ComputeApp> parse_compute_apps(std::string_view text);

// The PCI bus id as the kernel's XID lines print it ("0000:3b:00") from nvidia-smi's ("00000000:3B:00.0").
std::string short_pci(std::string_view nvidia_smi_bus_id);

}  // namespace muster::telemetry
