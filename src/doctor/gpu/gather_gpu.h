// Gathering GpuNodeFacts on this node: what `muster node gpu` prints. nvidia-smi's queries (gpu/smi_output.h) run
// at once, each bounded by the timeout; meanwhile the kernel log since boot is read for XIDs (gpu/kernel_events.h)
// and /sys and /proc for the fabric (gpu/node_sysfs.h). Nothing is installed or loaded on the node: nvidia-smi
// comes with the driver, the rest are files. Never fails as a whole: what cannot be learned stays unknown, and
// what a user must hear (nvidia-smi broken, the kernel log unreadable) goes into the facts' error fields.
#pragma once

#include <string>

#include "doctor/gpu/gpu_facts.h"

namespace muster::doctor {

struct GpuGatherOptions {
  int timeout_ms = 8000;  // for each nvidia-smi
  bool operator==(const GpuGatherOptions&) const = default;
};

GpuNodeFacts gather_gpu(const GpuGatherOptions& options);

// Whether this node has NVIDIA GPUs: MUSTER_NODE_GPUS (1 or 0) when set, else /dev/nvidiactl.
bool node_has_nvidia_devices();

}  // namespace muster::doctor
