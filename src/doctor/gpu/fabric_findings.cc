// gpu-fabric-manager, gpu-rdma, infiniband-ports: what connects the GPUs beyond themselves. On NVSwitch systems
// the fabric manager must run and the GPUs' fabric state be Completed, or CUDA does not start; with InfiniBand,
// GPUDirect RDMA needs nvidia_peermem (or DMA-BUF); every port must be ACTIVE, at the rate of the others, with one
// link layer across the nodes.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "doctor/gpu/gpu_findings.h"
#include "util/text.h"

namespace muster::doctor::gpu_detail {
namespace {

std::string port_name(const IbPort& port) { return fmt::format("{} port {}", port.device, port.port); }

// Why a port is not ACTIVE and what to do, from its physical state.
std::pair<std::string, std::string> inactive_port(const IbPort& port) {
  if (port.phys_state == "LinkUp") {
    return {"the link is up but no subnet manager has configured the port",
            "start a subnet manager on the fabric (opensm on one node, or the switch's / UFM's), then `ibstat` "
            "shows State: Active"};
  }
  if (port.phys_state == "Disabled") {
    return {"the port is disabled", fmt::format("enable it (ibportstate or the switch), then check `ibstat {}`",
                                                port.device)};
  }
  return {fmt::format("no link ({})", port.phys_state.empty() ? "physical state unknown" : port.phys_state),
          "check the cable, transceiver and switch port (ibstat, and the switch's port state)"};
}

}  // namespace

void check_fabric_manager(const GpuInput& in, Findings& out) {
  size_t before = out.size();
  bool any = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const GpuNodeFacts& node = in.gpu[i];
    if (node.nvswitches > 0) {
      any = true;
      if (!node.fabric_manager) {
        out.push_back({Severity::error, "gpu-fabric-manager", in.names[i],
                       fmt::format("{} has {} NVSwitch(es) but no fabric manager runs: CUDA cannot use the GPUs "
                                   "(\"system not yet initialized\") until it has set up the NVLink fabric",
                                   in.names[i], node.nvswitches),
                       "sudo systemctl enable --now nvidia-fabricmanager (the package's version must be the "
                       "driver's); its log is /var/log/fabricmanager.log"});
      }
    }
    std::vector<std::string> pending;
    for (const auto& gpu : node.gpus) {
      bool state_bad = !gpu.fabric_state.empty() && gpu.fabric_state != "Completed";
      bool status_bad = !gpu.fabric_status.empty() && gpu.fabric_status != "Success";
      if (state_bad || status_bad) {
        pending.push_back(fmt::format("{}: {}{}", gpu_label(gpu), gpu.fabric_state,
                                      gpu.fabric_status.empty() ? "" : ", " + gpu.fabric_status));
      }
      any = any || !gpu.fabric_state.empty();
    }
    if (!pending.empty()) {
      out.push_back({Severity::error, "gpu-fabric-manager", in.names[i],
                     fmt::format("the NVLink fabric is not ready ({}): CUDA cannot use these GPUs until it is",
                                 join(pending, "; ")),
                     "wait for the fabric manager to finish, else restart it (sudo systemctl restart "
                     "nvidia-fabricmanager) and read /var/log/fabricmanager.log"});
    }
  }
  if (out.size() == before) {
    out.push_back({Severity::ok, "gpu-fabric-manager", "",
                   any ? "the NVLink fabric is ready on every NVSwitch node (fabric manager running)"
                       : "no NVSwitch: no fabric manager needed",
                   ""});
  }
}

void check_rdma(const GpuInput& in, Findings& out) {
  size_t before = out.size();
  bool relevant = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const GpuNodeFacts& node = in.gpu[i];
    if (!node.has_gpus() || node.ib_ports.empty()) continue;
    relevant = true;
    if (!node.peermem_module.empty()) continue;
    out.push_back({Severity::warning, "gpu-rdma", in.names[i],
                   fmt::format("{} has GPUs and InfiniBand/RoCE but nvidia_peermem is not loaded: unless NCCL can use "
                               "DMA-BUF (Linux 5.12 or later with NVIDIA's open kernel modules), GPUDirect RDMA is off "
                               "and every transfer is copied through host memory",
                               in.names[i]),
                   "sudo modprobe nvidia_peermem, and add it to /etc/modules-load.d/ (NCCL_DEBUG=INFO then shows "
                   "\"GPU Direct RDMA Enabled\")"});
  }
  if (out.size() == before && relevant) {
    out.push_back({Severity::ok, "gpu-rdma", "",
                   "GPUDirect RDMA: nvidia_peermem is loaded on every GPU node with InfiniBand/RoCE", ""});
  }
}

void check_ib_ports(const GpuInput& in, Findings& out) {
  size_t before = out.size(), ports = 0;
  std::map<std::string, double> best;  // link layer -> the best rate of an active port
  std::map<std::string, std::string> best_text;
  std::map<std::string, std::set<std::string>> layers;  // link layer -> nodes
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& port : in.gpu[i].ib_ports) {
      if (port.state != "ACTIVE" || port.rate_gbps <= 0) continue;
      if (port.rate_gbps > best[port.link_layer]) {
        best[port.link_layer] = port.rate_gbps;
        best_text[port.link_layer] = port.rate;
      }
    }
  }
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& port : in.gpu[i].ib_ports) {
      ++ports;
      if (!port.link_layer.empty()) layers[port.link_layer].insert(in.names[i]);
      if (port.state != "ACTIVE") {
        auto [why, fix] = inactive_port(port);
        out.push_back({Severity::error, "infiniband-ports", in.names[i],
                       fmt::format("{}: {} ({}): NCCL cannot use it, and a job that names it in NCCL_IB_HCA fails",
                                   port_name(port), port.state.empty() ? "state unknown" : port.state, why),
                       fix});
      } else if (port.rate_gbps > 0 && port.rate_gbps < best[port.link_layer]) {
        out.push_back({Severity::warning, "infiniband-ports", in.names[i],
                       fmt::format("{} runs at {} where others run at {}: a cable, transceiver or switch port "
                                   "negotiated less, and NCCL's ring runs at the slowest port's rate",
                                   port_name(port), port.rate, best_text[port.link_layer]),
                       fmt::format("check the cable and transceiver of {} (ibstat {}; mlxlink -d {} if installed)",
                                   port_name(port), port.device, port.device)});
      }
    }
  }
  if (layers.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [layer, nodes] : layers) {
      parts.push_back(fmt::format("{} on {}", layer, join(std::vector<std::string>(nodes.begin(), nodes.end()), ", ")));
    }
    out.push_back({Severity::warning, "infiniband-ports", "",
                   fmt::format("the ports mix link layers ({}): InfiniBand and RoCE ports cannot talk to each other",
                               join(parts, "; ")),
                   "give NCCL the ports of one fabric on every node (NCCL_IB_HCA), or configure the ports alike"});
  }
  if (out.size() == before && ports > 0) {
    std::vector<std::string> rates;
    for (const auto& [layer, text] : best_text) rates.push_back(fmt::format("{} ({})", text, layer));
    out.push_back({Severity::ok, "infiniband-ports", "",
                   fmt::format("all {} InfiniBand/RoCE ports ACTIVE, at {}", ports, join(rates, ", ")), ""});
  }
}

}  // namespace muster::doctor::gpu_detail
