// /proc/driver/nvidia/gpus/<bus id>/information, parsed (pure): the GPU's model, UUID, bus location and device
// minor (/dev/nvidiaN), which is what the agent knows about its GPUs without running nvidia-smi. The format is the
// driver's "Key: <tabs> value" lines.
#pragma once

#include <optional>
#include <string_view>

#include "gpu/kernel_events.h"

namespace muster::gpu {

// nullopt when the text has no "Bus Location" (not this file).
std::optional<GpuIdentity> parse_proc_gpu_information(std::string_view text);

}  // namespace muster::gpu
