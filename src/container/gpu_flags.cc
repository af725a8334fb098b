#include "container/gpu_flags.h"

namespace muster::container {

std::string missing_gpu_runtime(Runtime runtime, const NodeGpuFacts& facts) {
  if (!facts.nvidia_devices) return "";
  if (runtime == Runtime::podman && !facts.cdi_nvidia) {
    return "podman passes GPUs through CDI, and this node has no CDI spec for them: install the NVIDIA "
           "Container Toolkit and run `sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`";
  }
  if (runtime == Runtime::docker && !facts.nvidia_toolkit) {
    return "docker --gpus needs the NVIDIA Container Toolkit: install nvidia-container-toolkit, then `sudo "
           "nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker`";
  }
  return "";
}

Result<std::vector<std::string>> gpu_flags(Runtime runtime, GpuMode mode, const NodeGpuFacts& facts) {
  if (mode == GpuMode::none) return std::vector<std::string>{};
  if (!facts.nvidia_devices) {
    if (mode == GpuMode::auto_detect) return std::vector<std::string>{};
    return make_error(ErrorKind::usage,
                      "--container-gpus all: this node has no NVIDIA GPU (no /dev/nvidiactl; is the driver "
                      "loaded?)");
  }
  if (auto missing = missing_gpu_runtime(runtime, facts); !missing.empty()) {
    return make_error(ErrorKind::usage, "this node has NVIDIA GPUs, but {} (or --container-gpus none to run "
                      "without them)", missing);
  }
  if (runtime == Runtime::docker) return std::vector<std::string>{"--gpus", "all"};
  return std::vector<std::string>{"--device", "nvidia.com/gpu=all"};
}

}  // namespace muster::container
