// What this node offers containers, looked up on the node itself (no runtime command is run): which runtime is
// installed, and what it needs to pass GPUs (gpu_flags.h). Used by the agent before it enters a container
// (enter.h) and by `muster node facts` for doctor.
#pragma once

#include <optional>
#include <string>

#include "container/gpu_flags.h"
#include "container/spec.h"

namespace muster::container {

// `requested` ("podman", "docker") when it is in PATH; "" = podman if installed, else docker. nullopt: none.
std::optional<Runtime> installed_runtime(std::string_view requested);

// /dev/nvidiactl, the CDI specs in /etc/cdi and /var/run/cdi, the NVIDIA Container Toolkit's programs in PATH.
NodeGpuFacts gather_gpu_facts();

}  // namespace muster::container
