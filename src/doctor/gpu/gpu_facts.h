// What `muster doctor --gpu` knows about one node's GPUs and their fabric: gathered on the node by `muster node gpu`
// (gpu/gather_gpu.h) from nvidia-smi's query interface, the kernel log and /sys, sent to the head as JSON, judged by
// the pure checks of gpu/gpu_checks.h. Plain data; every field is optional in JSON (a node that cannot tell leaves
// it out), numbers are -1 when unknown, texts empty.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/kernel_events.h"

namespace muster::doctor {

// One NVLink of a GPU (`nvidia-smi nvlink --status` and `--errorcounters`).
struct NvLinkState {
  int link = 0;
  bool active = false;
  double gb_per_s = -1;   // the link's speed (GB/s) when active
  int64_t replay = -1;    // error counters since the driver loaded; -1 not reported
  int64_t recovery = -1;
  int64_t crc = -1;

  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.link, "link");
    visit(m.active, "active");
    visit(m.gb_per_s, "gb_per_s");
    visit(m.replay, "replay");
    visit(m.recovery, "recovery");
    visit(m.crc, "crc");
  }
  bool operator==(const NvLinkState&) const = default;
};

// One GPU as `nvidia-smi --query-gpu` (gpu/smi_output.h) and `--query-remapped-rows` report it.
struct GpuHealth {
  int index = -1;
  std::string uuid, name, pci;  // pci: gpu::normalize_pci's form
  std::string persistence;      // "Enabled", "Disabled"
  std::string mig_current, mig_pending;  // "Enabled", "Disabled"; "" where MIG does not exist
  int64_t ecc_volatile_uncorrected = -1;   // since the driver loaded
  int64_t ecc_aggregate_uncorrected = -1;  // over the GPU's life
  std::string retired_pending;             // "Yes"/"No": a page waits for a reset to be retired (before A100)
  int64_t retired_dbe = -1;                // pages retired after double-bit errors
  int64_t remapped_uncorrectable = -1;     // rows remapped after uncorrectable errors (A100 and later)
  std::string remap_pending, remap_failure;  // "Yes"/"No"
  int pcie_gen = -1, pcie_gen_max = -1, pcie_width = -1, pcie_width_max = -1;
  int64_t throttle_reasons = -1;  // clocks_throttle_reasons.active: NVML's bit mask (gpu/gpu_checks.h names the bits)
  std::string pstate;             // "P0" (busy) ... "P8" (idle)
  int utilization = -1;           // percent
  int temperature = -1;           // °C
  int64_t memory_used_mib = -1, memory_total_mib = -1;
  std::string fabric_state, fabric_status;  // NVSwitch systems: "Completed" / "Success"
  std::vector<NvLinkState> nvlinks;

  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.index, "index");
    visit(m.uuid, "uuid");
    visit(m.name, "name");
    visit(m.pci, "pci");
    visit(m.persistence, "persistence");
    visit(m.mig_current, "mig_current");
    visit(m.mig_pending, "mig_pending");
    visit(m.ecc_volatile_uncorrected, "ecc_volatile_uncorrected");
    visit(m.ecc_aggregate_uncorrected, "ecc_aggregate_uncorrected");
    visit(m.retired_pending, "retired_pending");
    visit(m.retired_dbe, "retired_dbe");
    visit(m.remapped_uncorrectable, "remapped_uncorrectable");
    visit(m.remap_pending, "remap_pending");
    visit(m.remap_failure, "remap_failure");
    visit(m.pcie_gen, "pcie_gen");
    visit(m.pcie_gen_max, "pcie_gen_max");
    visit(m.pcie_width, "pcie_width");
    visit(m.pcie_width_max, "pcie_width_max");
    visit(m.throttle_reasons, "throttle_reasons");
    visit(m.pstate, "pstate");
    visit(m.utilization, "utilization");
    visit(m.temperature, "temperature");
    visit(m.memory_used_mib, "memory_used_mib");
    visit(m.memory_total_mib, "memory_total_mib");
    visit(m.fabric_state, "fabric_state");
    visit(m.fabric_status, "fabric_status");
    visit(m.nvlinks, "nvlinks");
  }
  bool operator==(const GpuHealth&) const = default;
};

// A process using a GPU (`nvidia-smi --query-compute-apps`), with its owner from /proc.
struct GpuProcess {
  std::string gpu_uuid;
  int pid = -1;
  std::string name;
  int64_t used_mib = -1;
  std::string user;  // "" when /proc does not show it (another PID namespace)

  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.gpu_uuid, "gpu_uuid");
    visit(m.pid, "pid");
    visit(m.name, "name");
    visit(m.used_mib, "used_mib");
    visit(m.user, "user");
  }
  bool operator==(const GpuProcess&) const = default;
};

// One port of an InfiniBand/RoCE device (/sys/class/infiniband/<device>/ports/<port>/).
struct IbPort {
  std::string device;       // mlx5_0
  int port = 1;
  std::string state;        // "ACTIVE", "INIT", "DOWN", "ARMED" (the number dropped)
  std::string phys_state;   // "LinkUp", "Polling", "Disabled", ...
  std::string rate;         // "400 Gb/sec (4X NDR)"
  double rate_gbps = -1;    // 400
  std::string link_layer;   // "InfiniBand", "Ethernet" (RoCE)

  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.device, "device");
    visit(m.port, "port");
    visit(m.state, "state");
    visit(m.phys_state, "phys_state");
    visit(m.rate, "rate");
    visit(m.rate_gbps, "rate_gbps");
    visit(m.link_layer, "link_layer");
  }
  bool operator==(const IbPort&) const = default;
};

// An XID from the kernel log, as JSON carries gpu::GpuKernelEvent.
struct XidRecord {
  gpu::GpuKernelEvent event;

  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.event.xid, "xid");
    visit(m.event.pci, "pci");
    visit(m.event.pid, "pid");
    visit(m.event.process, "process");
    visit(m.event.detail, "detail");
    visit(m.event.monotonic_ms, "monotonic_ms");
  }
  bool operator==(const XidRecord&) const = default;
};

struct GpuNodeFacts {
  bool gpu_devices = false;       // /dev/nvidiactl (or MUSTER_NODE_GPUS=1): the node has NVIDIA GPUs
  bool has_nvidia_smi = false;
  std::string smi_error;          // nvidia-smi is there but its query failed
  std::vector<std::string> unknown_fields;  // query fields this driver's nvidia-smi does not know (left out)
  std::vector<GpuHealth> gpus;
  std::vector<GpuProcess> processes;
  std::vector<XidRecord> xids;    // since boot, as far as the kernel's log buffer reaches (the last 256)
  std::string kernel_log_error;   // why the kernel log could not be read ("" = read)
  int64_t uptime_ms = -1;         // the node's clock since boot when gathered (the XIDs' clock)
  std::vector<IbPort> ib_ports;
  std::string peermem_module;     // "nvidia_peermem" or "nv_peer_mem" when loaded, "" when neither
  int nvswitches = 0;             // NVSwitch devices the driver knows (/proc/driver/nvidia-nvswitch/devices)
  bool fabric_manager = false;    // an nv-fabricmanager process runs

  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.gpu_devices, "gpu_devices");
    visit(m.has_nvidia_smi, "has_nvidia_smi");
    visit(m.smi_error, "smi_error");
    visit(m.unknown_fields, "unknown_fields");
    visit(m.gpus, "gpus");
    visit(m.processes, "processes");
    visit(m.xids, "xids");
    visit(m.kernel_log_error, "kernel_log_error");
    visit(m.uptime_ms, "uptime_ms");
    visit(m.ib_ports, "ib_ports");
    visit(m.peermem_module, "peermem_module");
    visit(m.nvswitches, "nvswitches");
    visit(m.fabric_manager, "fabric_manager");
  }
  bool operator==(const GpuNodeFacts&) const = default;

  bool has_gpus() const { return gpu_devices || !gpus.empty(); }
};

void to_json(nlohmann::json& json, const NvLinkState& link);
void from_json(const nlohmann::json& json, NvLinkState& link);
void to_json(nlohmann::json& json, const GpuHealth& gpu);
void from_json(const nlohmann::json& json, GpuHealth& gpu);
void to_json(nlohmann::json& json, const GpuProcess& process);
void from_json(const nlohmann::json& json, GpuProcess& process);
void to_json(nlohmann::json& json, const IbPort& port);
void from_json(const nlohmann::json& json, IbPort& port);
void to_json(nlohmann::json& json, const XidRecord& xid);
void from_json(const nlohmann::json& json, XidRecord& xid);
void to_json(nlohmann::json& json, const GpuNodeFacts& facts);
void from_json(const nlohmann::json& json, GpuNodeFacts& facts);

}  // namespace muster::doctor
