// gpu-clocks, gpu-persistence, gpu-mig, gpu-busy: what each GPU is doing now. A clock held down by the hardware
// (slowdown, thermal, power brake) or by a software thermal limit makes the whole job run at that GPU's pace; the
// power cap (a normal state under load) is not reported.
#include <map>

#include <fmt/format.h>

#include "doctor/gpu/gpu_checks.h"
#include "doctor/gpu/gpu_findings.h"
#include "util/text.h"

namespace muster::doctor::gpu_detail {
namespace {

struct ThrottleReason {
  int64_t bit;
  const char* what;
  const char* fix;
};

constexpr ThrottleReason kReasons[] = {
    {kThrottleHwSlowdown, "hardware slowdown (the GPU halves its clocks or more: a power supply or temperature alarm)",
     "check the node's power supplies and cooling (nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE)"},
    {kThrottleHwThermal, "hardware thermal slowdown (the GPU is too hot)",
     "check the airflow, fans and inlet temperature of the node (nvidia-smi -q -d TEMPERATURE)"},
    {kThrottleHwPowerBrake, "hardware power brake (an external signal from the power supply or chassis)",
     "check the node's power supplies and the BMC's event log (ipmitool sel list)"},
    {kThrottleSwThermal, "software thermal slowdown (above its target temperature)",
     "check the cooling (nvidia-smi -q -d TEMPERATURE)"},
};

std::string fold_indices(const std::vector<int>& indices) {
  std::vector<std::string> texts;
  for (int index : indices) texts.push_back(std::to_string(index));
  return join(texts, ", ");
}

}  // namespace

void check_clocks(const GpuInput& in, Findings& out) {
  size_t before = out.size(), known = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& gpu : in.gpu[i].gpus) {
      if (gpu.throttle_reasons < 0) continue;
      ++known;
      std::vector<std::string> whats, fixes;
      for (const auto& reason : kReasons) {
        if ((gpu.throttle_reasons & reason.bit) == 0) continue;
        whats.push_back(reason.what);
        fixes.push_back(reason.fix);
      }
      if (whats.empty()) continue;
      std::string temperature = gpu.temperature >= 0 ? fmt::format(", {} °C", gpu.temperature) : "";
      out.push_back({Severity::warning, "gpu-clocks", in.names[i],
                     fmt::format("{}: clocks held down by {}{}: every rank waits for this GPU at each step",
                                 gpu_label(gpu), join(whats, " and "), temperature),
                     join(fixes, "; ")});
    }
  }
  if (out.size() == before && known > 0) {
    out.push_back({Severity::ok, "gpu-clocks", "",
                   "no GPU is held back by a hardware slowdown, a thermal limit or a power brake", ""});
  }
}

void check_persistence(const GpuInput& in, Findings& out) {
  size_t before = out.size(), known = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<int> off;
    for (const auto& gpu : in.gpu[i].gpus) {
      if (gpu.persistence.empty()) continue;
      ++known;
      if (gpu.persistence == "Disabled") off.push_back(gpu.index);
    }
    if (off.empty()) continue;
    out.push_back({Severity::warning, "gpu-persistence", in.names[i],
                   fmt::format("persistence mode is off on GPU {}: the driver lets go of an idle GPU, so every job's "
                               "start pays its initialisation again (seconds per GPU) and settings such as clocks are "
                               "lost between jobs",
                               fold_indices(off)),
                   "sudo systemctl enable --now nvidia-persistenced (or: sudo nvidia-smi -pm 1)"});
  }
  if (out.size() == before && known > 0) {
    out.push_back({Severity::ok, "gpu-persistence", "", "persistence mode is on for every GPU", ""});
  }
}

void check_mig(const GpuInput& in, Findings& out) {
  size_t before = out.size(), known = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& gpu : in.gpu[i].gpus) {
      if (gpu.mig_current.empty()) continue;
      ++known;
      if (gpu.mig_current == "Enabled") {
        out.push_back({Severity::warning, "gpu-mig", in.names[i],
                       fmt::format("{}: MIG is on: a job sees MIG instances (MIG-... devices), not the whole GPU, and "
                                   "NCCL cannot use NVLink or peer-to-peer between instances",
                                   gpu_label(gpu)),
                       fmt::format("for whole-GPU training: sudo nvidia-smi {} -mig 0, then reset the GPU "
                                   "(sudo nvidia-smi -r {})",
                                   gpu_flag(gpu), gpu_flag(gpu))});
      } else if (!gpu.mig_pending.empty() && gpu.mig_pending != gpu.mig_current) {
        out.push_back({Severity::warning, "gpu-mig", in.names[i],
                       fmt::format("{}: MIG mode changes to {} at the next GPU reset (now {})", gpu_label(gpu),
                                   gpu.mig_pending, gpu.mig_current),
                       fmt::format("reset the GPU (sudo nvidia-smi -r {}) or set the mode back", gpu_flag(gpu))});
      }
    }
  }
  if (out.size() == before && known > 0) {
    out.push_back({Severity::ok, "gpu-mig", "", "MIG is off on every GPU that has it", ""});
  }
}

void check_busy(const GpuInput& in, Findings& out) {
  size_t before = out.size(), gpus = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const GpuNodeFacts& node = in.gpu[i];
    gpus += node.gpus.size();
    std::map<std::string, std::vector<const GpuProcess*>> by_gpu;
    for (const auto& process : node.processes) by_gpu[process.gpu_uuid].push_back(&process);
    for (const auto& gpu : node.gpus) {
      auto found = by_gpu.find(gpu.uuid);
      if (found == by_gpu.end()) continue;
      std::vector<std::string> who;
      std::vector<std::string> pids;
      for (const GpuProcess* process : found->second) {
        who.push_back(fmt::format("pid {} {} ({}) {} MiB", process->pid, process->name.empty() ? "?" : process->name,
                                  process->user.empty() ? "user unknown: another PID namespace" : process->user,
                                  process->used_mib));
        pids.push_back(std::to_string(process->pid));
      }
      out.push_back({Severity::warning, "gpu-busy", in.names[i],
                     fmt::format("{} is in use: {}; a job there shares its memory and compute (out of memory, or "
                                 "slower)",
                                 gpu_label(gpu), join(who, ", ")),
                     fmt::format("wait for them, or stop them if they are left over (kill {}), or keep the job off "
                                 "this GPU (CUDA_VISIBLE_DEVICES)",
                                 join(pids, " "))});
    }
  }
  if (out.size() == before && gpus > 0) {
    out.push_back({Severity::ok, "gpu-busy", "", "no process uses any GPU", ""});
  }
}

}  // namespace muster::doctor::gpu_detail
