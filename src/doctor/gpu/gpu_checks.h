// The pure half of `muster doctor --gpu` (and of `launch --preflight` on GPU nodes): every node's GpuNodeFacts
// (gpu/gpu_facts.h) -> findings, each naming the node and GPU, what is wrong and why it matters, and the command that
// fixes it. No I/O, no clock: the facts carry the node's uptime, against which the XIDs' times are told.
//
// Checks, in order: gpu (GPUs found, nvidia-smi works, the kernel log is readable), gpu-driver (the driver's CUDA
// against torch's), gpu-xid (XIDs since boot, gpu/xid.h), gpu-ecc (uncorrectable ECC volatile and aggregate,
// pending or failed row remaps, retired pages), gpu-pcie (link width or, under load, generation below the
// maximum), gpu-nvlink (links down, slower than their peers, or erroring), gpu-clocks (hardware slowdown, thermal
// slowdown, power brake), gpu-persistence, gpu-mig, gpu-busy (other processes, whose, how much memory),
// gpu-fabric-manager (NVSwitch systems), gpu-rdma (nvidia_peermem where there is InfiniBand), infiniband-ports
// (state, rate, link layer). Each says `ok` once, cluster-wide, when it finds nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "doctor/gpu/gpu_facts.h"
#include "doctor/node/node_facts.h"
#include "util/finding.h"

namespace muster::doctor {

// NVML's clock throttle ("clock event") reasons, the bits of clocks_throttle_reasons.active.
inline constexpr int64_t kThrottleSwPowerCap = 0x4;
inline constexpr int64_t kThrottleHwSlowdown = 0x8;
inline constexpr int64_t kThrottleSwThermal = 0x20;
inline constexpr int64_t kThrottleHwThermal = 0x40;
inline constexpr int64_t kThrottleHwPowerBrake = 0x80;

// NVLink error counters above this (since the driver loaded) make a link suspect; any recovery counts.
inline constexpr int64_t kNvlinkErrorLimit = 100;

// `names[i]` owns `gpu[i]` and, when given (same size), `facts[i]` (its driver's CUDA and torch's: gpu-driver).
std::vector<Finding> check_gpu_health(const std::vector<std::string>& names, const std::vector<GpuNodeFacts>& gpu,
                                      const std::vector<NodeFacts>& facts = {});

// "3 h 12 min", "5 min 3 s", "42 s": how long ago, for the XIDs.
std::string format_duration_ms(int64_t ms);

}  // namespace muster::doctor
