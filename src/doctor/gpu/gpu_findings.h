// The checks of gpu_checks.h, one file per concept (xid_findings.cc, memory_findings.cc, link_findings.cc,
// state_findings.cc, fabric_findings.cc), and what they share. Internal to doctor/gpu.
#pragma once

#include <string>
#include <vector>

#include "doctor/gpu/gpu_facts.h"
#include "doctor/node/node_facts.h"
#include "util/finding.h"

namespace muster::doctor::gpu_detail {

struct GpuInput {
  const std::vector<std::string>& names;
  const std::vector<GpuNodeFacts>& gpu;
  const std::vector<NodeFacts>& facts;  // empty or one per node
  std::size_t size() const { return names.size(); }
};
using Findings = std::vector<Finding>;

// "GPU 2 (0000:3b:00)"; "GPU 2" without a bus id.
std::string gpu_label(const GpuHealth& gpu);
// The GPU `index` as a fix names it: "-i 2"; "" when unknown.
std::string gpu_flag(const GpuHealth& gpu);

void check_xids(const GpuInput& in, Findings& out);
void check_memory(const GpuInput& in, Findings& out);
void check_pcie(const GpuInput& in, Findings& out);
void check_nvlink(const GpuInput& in, Findings& out);
void check_clocks(const GpuInput& in, Findings& out);
void check_persistence(const GpuInput& in, Findings& out);
void check_mig(const GpuInput& in, Findings& out);
void check_busy(const GpuInput& in, Findings& out);
void check_fabric_manager(const GpuInput& in, Findings& out);
void check_rdma(const GpuInput& in, Findings& out);
void check_ib_ports(const GpuInput& in, Findings& out);

}  // namespace muster::doctor::gpu_detail
