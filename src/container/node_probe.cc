#include "container/node_probe.h"

#include "posix/dir.h"
#include "posix/exec.h"
#include "posix/file.h"

namespace muster::container {
namespace {

bool cdi_names_nvidia_gpus(const std::string& dir_path) {
  auto dir = posix::Dir::open(dir_path);
  if (!dir) return false;
  auto names = dir->names();
  if (!names) return false;
  for (const auto& name : *names) {
    if (!name.ends_with(".yaml") && !name.ends_with(".yml") && !name.ends_with(".json")) continue;
    auto text = posix::read_text_file(dir_path + "/" + name);
    if (text && text->find("nvidia.com/gpu") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::optional<Runtime> installed_runtime(std::string_view requested) {
  for (Runtime runtime : {Runtime::podman, Runtime::docker}) {
    if (!requested.empty() && requested != runtime_name(runtime)) continue;
    if (posix::find_in_path(runtime_name(runtime))) return runtime;
  }
  return std::nullopt;
}

NodeGpuFacts gather_gpu_facts() {
  NodeGpuFacts facts;
  facts.nvidia_devices = posix::path_exists("/dev/nvidiactl");
  facts.cdi_nvidia = cdi_names_nvidia_gpus("/etc/cdi") || cdi_names_nvidia_gpus("/var/run/cdi");
  for (const char* program : {"nvidia-container-runtime-hook", "nvidia-container-runtime", "nvidia-ctk"}) {
    if (posix::find_in_path(program)) facts.nvidia_toolkit = true;
  }
  return facts;
}

}  // namespace muster::container
