// doctor's GPU node operation (head/node_op.h): `muster node gpu` gathers this node's GpuNodeFacts (gather_gpu.h)
// and prints them as one JSON line. Run by the --gpu round of examine (doctor/examine.h).
#pragma once

#include "doctor/gpu/gather_gpu.h"
#include "util/result.h"

namespace muster::doctor {

struct GpuOp {
  static constexpr const char* kName = "gpu";
  static constexpr const char* kHelp = "print what `muster doctor --gpu` knows about this node's GPUs, as one JSON line";
  GpuGatherOptions gather;
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.gather.timeout_ms, "--timeout-ms", "bound on each nvidia-smi");
  }
  static Result<int> run(const GpuOp& op);
  bool operator==(const GpuOp&) const = default;
};

}  // namespace muster::doctor
