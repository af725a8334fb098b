// gpu-pcie and gpu-nvlink: the GPU's links. PCIe: a link narrower than the GPU's maximum is a warning at any time;
// a lower generation only when the GPU is busy (P0 or in use), since idle GPUs lower their link's generation to
// save power (`doctor --fabric` measures host-to-device copies under load). NVLink: links down, slower than the
// GPU's other links, or counting recoveries or more than kNvlinkErrorLimit replays/CRC errors.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "doctor/gpu/gpu_checks.h"
#include "doctor/gpu/gpu_findings.h"
#include "util/text.h"

namespace muster::doctor::gpu_detail {
namespace {

bool busy(const GpuHealth& gpu) { return gpu.pstate == "P0" || gpu.utilization > 0; }

std::string lspci_fix(const GpuHealth& gpu) {
  return fmt::format("reseat the GPU (and its riser or cable) and check the slot; `sudo lspci -vv -s {} | grep -E "
                     "'LnkCap|LnkSta'` shows what the link can do and what it runs at",
                     gpu.pci.empty() ? std::string("<bus id>") : gpu.pci);
}

std::string link_numbers(const std::vector<int>& links) {
  std::vector<std::string> texts;
  for (int link : links) texts.push_back(std::to_string(link));
  return join(texts, ", ");
}

}  // namespace

void check_pcie(const GpuInput& in, Findings& out) {
  size_t before = out.size(), known = 0, idle_lower = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& gpu : in.gpu[i].gpus) {
      if (gpu.pcie_width < 0 || gpu.pcie_width_max < 0) continue;
      ++known;
      if (gpu.pcie_width < gpu.pcie_width_max) {
        out.push_back({Severity::warning, "gpu-pcie", in.names[i],
                       fmt::format("{}: PCIe link x{} of x{}: host-to-GPU copies (data loading, offload, NCCL through "
                                   "host memory) get {:.0f}% of the bandwidth",
                                   gpu_label(gpu), gpu.pcie_width, gpu.pcie_width_max,
                                   100.0 * gpu.pcie_width / gpu.pcie_width_max),
                       lspci_fix(gpu)});
      }
      if (gpu.pcie_gen > 0 && gpu.pcie_gen_max > 0 && gpu.pcie_gen < gpu.pcie_gen_max) {
        if (!busy(gpu)) {
          ++idle_lower;
          continue;
        }
        out.push_back({Severity::warning, "gpu-pcie", in.names[i],
                       fmt::format("{}: PCIe gen {} of gen {} while busy ({}): each generation halves the bandwidth",
                                   gpu_label(gpu), gpu.pcie_gen, gpu.pcie_gen_max,
                                   gpu.pstate.empty() ? fmt::format("{}% used", gpu.utilization) : gpu.pstate),
                       lspci_fix(gpu) + "; a BIOS setting may cap the slot's generation"});
      }
    }
  }
  if (out.size() == before && known > 0) {
    out.push_back({Severity::ok, "gpu-pcie", "",
                   idle_lower > 0 ? fmt::format("every GPU's PCIe link runs at its full width ({} idle GPU(s) at a "
                                                "lower generation, as idle GPUs save power that way; `muster doctor "
                                                "--fabric` measures host-to-device copies under load)",
                                                idle_lower)
                                  : "every GPU's PCIe link runs at its full width and generation",
                   ""});
  }
}

void check_nvlink(const GpuInput& in, Findings& out) {
  size_t before = out.size(), links = 0;
  double speed = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& gpu : in.gpu[i].gpus) {
      if (gpu.nvlinks.empty()) continue;
      double fastest = 0;
      for (const auto& link : gpu.nvlinks) fastest = std::max(fastest, link.gb_per_s);
      speed = std::max(speed, fastest);
      std::vector<int> down, slow, erring;
      std::string errors;
      for (const auto& link : gpu.nvlinks) {
        ++links;
        if (!link.active) down.push_back(link.link);
        else if (link.gb_per_s > 0 && link.gb_per_s < fastest * 0.95) slow.push_back(link.link);
        if (link.recovery > 0 || link.replay > kNvlinkErrorLimit || link.crc > kNvlinkErrorLimit) {
          erring.push_back(link.link);
          errors += fmt::format("{}link {}: {} recoveries, {} replays, {} CRC errors", errors.empty() ? "" : "; ",
                                link.link, std::max<int64_t>(link.recovery, 0), std::max<int64_t>(link.replay, 0),
                                std::max<int64_t>(link.crc, 0));
        }
      }
      size_t active = gpu.nvlinks.size() - down.size();
      if (!down.empty()) {
        out.push_back({Severity::error, "gpu-nvlink", in.names[i],
                       fmt::format("{}: NVLink {} down ({} of {} links active): traffic between its GPUs goes over "
                                   "fewer links or PCIe, and NCCL's collectives slow down or fail",
                                   gpu_label(gpu), link_numbers(down), active, gpu.nvlinks.size()),
                       "reset the GPUs once idle (sudo nvidia-smi -r) or reboot; on NVSwitch systems check the fabric "
                       "manager (systemctl status nvidia-fabricmanager); if a link stays down, reseat the GPU board "
                       "(nvidia-smi nvlink -s shows each link)"});
      }
      if (!slow.empty()) {
        out.push_back({Severity::warning, "gpu-nvlink", in.names[i],
                       fmt::format("{}: NVLink {} slower than its other links ({} GB/s)", gpu_label(gpu),
                                   link_numbers(slow), fastest),
                       "reset the GPUs once idle (sudo nvidia-smi -r); reseat the board if the link stays slow"});
      }
      if (!erring.empty()) {
        out.push_back({Severity::warning, "gpu-nvlink", in.names[i],
                       fmt::format("{}: NVLink errors since the driver loaded ({}): a marginal link retransmits, and "
                                   "a recovery means it went down and was retrained",
                                   gpu_label(gpu), errors),
                       "watch `nvidia-smi nvlink -e` (sudo nvidia-smi nvlink -r resets the counters); if they grow, "
                       "reseat or replace the GPU board"});
      }
    }
  }
  if (out.size() == before) {
    bool gpus = std::any_of(in.gpu.begin(), in.gpu.end(), [](const GpuNodeFacts& n) { return !n.gpus.empty(); });
    if (links > 0) {
      out.push_back({Severity::ok, "gpu-nvlink", "",
                     fmt::format("all {} NVLinks up, at {} GB/s per link, without errors", links, speed), ""});
    } else if (gpus) {
      out.push_back({Severity::ok, "gpu-nvlink", "", "no NVLink reported: the GPUs talk over PCIe", ""});
    }
  }
}

}  // namespace muster::doctor::gpu_detail
