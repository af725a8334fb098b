// Which runtime flags give a container the node's NVIDIA GPUs, from what the node has (gathered by enter.cc and
// by doctor): docker needs the NVIDIA Container Toolkit (`--gpus all`), podman a CDI spec that names
// nvidia.com/gpu devices (`--device nvidia.com/gpu=all`, what `nvidia-ctk cdi generate` writes). All GPUs go
// in: the job's own CUDA_VISIBLE_DEVICES (muster's --include/--exclude) then picks among them with the same
// indices as on bare metal. Pure.
#pragma once

#include <string>
#include <vector>

#include "container/spec.h"
#include "util/result.h"

namespace muster::container {

struct NodeGpuFacts {
  bool nvidia_devices = false;  // /dev/nvidiactl (the driver is loaded and has GPUs)
  bool cdi_nvidia = false;      // a CDI spec in /etc/cdi or /var/run/cdi names nvidia.com/gpu
  bool nvidia_toolkit = false;  // nvidia-container-runtime-hook, nvidia-container-runtime or nvidia-ctk in PATH
};

// The flags, or an error (usage) that says what is missing and how to install it. A node without GPUs gets no
// flags under `auto`; under `all` that is an error.
Result<std::vector<std::string>> gpu_flags(Runtime runtime, GpuMode mode, const NodeGpuFacts& facts);

// What a node lacks to pass its GPUs to `runtime`, as a fix a user can run; empty when nothing is missing (or
// the node has no GPUs). Shared by gpu_flags and doctor's check.
std::string missing_gpu_runtime(Runtime runtime, const NodeGpuFacts& facts);

}  // namespace muster::container
