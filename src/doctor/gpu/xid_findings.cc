// gpu-xid: the XIDs in each node's kernel log since boot, one finding per GPU and code (counted, the last one's age),
// worded from the catalogue (gpu/xid.h): an error when the node is at fault, a warning when the program usually is.
#include <map>
#include <string>

#include <fmt/format.h>

#include "doctor/gpu/gpu_checks.h"
#include "doctor/gpu/gpu_findings.h"
#include "gpu/kernel_events.h"
#include "gpu/xid.h"

namespace muster::doctor::gpu_detail {
namespace {

struct XidGroup {
  int count = 0;
  const gpu::GpuKernelEvent* first = nullptr;  // its words are usually the most telling
  const gpu::GpuKernelEvent* last = nullptr;
};

// "GPU <index> (<bus id>)": the doctor's table has the UUIDs, so the finding stays short.
std::vector<gpu::GpuIdentity> identities(const GpuNodeFacts& node) {
  std::vector<gpu::GpuIdentity> out;
  for (const auto& gpu : node.gpus) out.push_back({gpu.index, gpu.pci, "", gpu.name});
  return out;
}

// The catalogue's fix with its "<GPU>" made this GPU's index where it is known.
std::string fix_for(const gpu::XidInfo& info, const GpuNodeFacts& node, const std::string& pci) {
  std::string fix = info.fix;
  for (const auto& gpu : node.gpus) {
    if (gpu.pci != pci || gpu.index < 0) continue;
    for (size_t at; (at = fix.find("<GPU>")) != std::string::npos;) fix.replace(at, 5, std::to_string(gpu.index));
  }
  return fix;
}

}  // namespace

void check_xids(const GpuInput& in, Findings& out) {
  bool clean = true, looked = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const GpuNodeFacts& node = in.gpu[i];
    if (!node.has_gpus()) continue;
    looked = looked || node.kernel_log_error.empty();
    std::map<std::pair<std::string, int>, XidGroup> groups;  // (pci, code), in bus order
    for (const auto& record : node.xids) {
      auto& group = groups[{record.event.pci, record.event.xid}];
      ++group.count;
      if (group.first == nullptr) group.first = &record.event;
      group.last = &record.event;
    }
    auto gpus = identities(node);
    for (const auto& [key, group] : groups) {
      clean = false;
      const auto& [pci, code] = key;
      gpu::XidInfo info = gpu::xid_info(code);
      const gpu::GpuKernelEvent& last = *group.last;
      std::string when;
      if (last.monotonic_ms >= 0 && node.uptime_ms >= last.monotonic_ms) {
        when = fmt::format(", the last {} ago", format_duration_ms(node.uptime_ms - last.monotonic_ms));
      }
      std::string who = last.pid >= 0 ? fmt::format(" (pid {}{})", last.pid, last.process.empty() ? "" : " " + last.process)
                                      : "";
      std::string blame = info.fault == gpu::XidFault::node       ? "the GPU or node is at fault"
                          : info.fault == gpu::XidFault::workload ? "usually the program, not the node"
                                                                  : "whose fault is not known";
      out.push_back({info.fault == gpu::XidFault::node ? Severity::error : Severity::warning, "gpu-xid",
                     in.names[i],
                     fmt::format("{} logged XID {} ({}) {} time{} since boot{}{}: {} ({}). Kernel log: \"{}\"",
                                 gpu::describe_gpu(gpus, pci), code, info.name, group.count,
                                 group.count == 1 ? "" : "s", when, who, info.meaning, blame,
                                 group.first->detail.empty() ? fmt::format("Xid {}", code) : group.first->detail),
                     fix_for(info, node, pci)});
    }
  }
  if (clean && looked) {
    out.push_back({Severity::ok, "gpu-xid", "", "no XID in the kernel log of any GPU node since boot", ""});
  }
}

}  // namespace muster::doctor::gpu_detail
