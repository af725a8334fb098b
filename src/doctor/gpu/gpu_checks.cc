// The entry of the --gpu checks: whether there is anything to check (GPUs, a working nvidia-smi, a readable kernel
// log), the driver's CUDA against torch's, then every concept's check (gpu_findings.h).
#include "doctor/gpu/gpu_checks.h"

#include <charconv>

#include <fmt/format.h>

#include "doctor/gpu/gpu_findings.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

using gpu_detail::Findings;
using gpu_detail::GpuInput;

std::string node_list(const std::vector<std::string>& names, const std::vector<size_t>& nodes) {
  std::vector<std::string> listed;
  for (size_t node : nodes) listed.push_back(names[node]);
  return join(listed, ", ");
}

// {major, minor} of "12.4"; {-1, -1} when not a version.
std::pair<int, int> major_minor(std::string_view text) {
  int major = -1, minor = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), major);
  if (error != std::errc()) return {-1, -1};
  if (end < text.data() + text.size() && *end == '.') {
    std::from_chars(end + 1, text.data() + text.size(), minor);
  }
  return {major, minor};
}

// GPUs found, nvidia-smi working, the kernel log readable. False when there is nothing more to check.
bool check_presence(const GpuInput& in, Findings& out) {
  std::vector<size_t> with, without;
  for (size_t i = 0; i < in.size(); ++i) (in.gpu[i].has_gpus() ? with : without).push_back(i);
  if (with.empty()) {
    out.push_back({Severity::ok, "gpu", "",
                   "no NVIDIA GPU on any node (no /dev/nvidiactl, nvidia-smi lists none): nothing for --gpu to check",
                   ""});
    return false;
  }
  bool clean = true;
  for (size_t i : with) {
    const GpuNodeFacts& node = in.gpu[i];
    if (!node.has_nvidia_smi) {
      clean = false;
      out.push_back({Severity::error, "gpu", in.names[i],
                     fmt::format("{} has NVIDIA GPUs (/dev/nvidiactl) but no nvidia-smi on PATH: the GPUs cannot be "
                                 "checked, and a driver without its utilities is often a half-installed one",
                                 in.names[i]),
                     "install the driver's utilities (Debian/Ubuntu: nvidia-utils-<version> matching the driver)"});
    } else if (!node.smi_error.empty()) {
      clean = false;
      out.push_back({Severity::error, "gpu", in.names[i],
                     fmt::format("nvidia-smi fails on {}: {}", in.names[i], node.smi_error),
                     "reload the NVIDIA driver or reboot the node (after a driver upgrade the kernel module and the "
                     "library differ until then)"});
    }
    if (!node.kernel_log_error.empty()) {
      clean = false;
      out.push_back({Severity::warning, "gpu", in.names[i],
                     fmt::format("the kernel log of {} cannot be read, so its XIDs were not checked: {}", in.names[i],
                                 node.kernel_log_error),
                     "run muster doctor as root, or allow reading it: sudo sysctl kernel.dmesg_restrict=0"});
    }
  }
  if (!without.empty()) {
    out.push_back({Severity::warning, "gpu", "",
                   fmt::format("{} have NVIDIA GPUs but {} have none", node_list(in.names, with),
                               node_list(in.names, without)),
                   "a GPU job needs GPUs on every node: leave the others out (-w / the hostfile)"});
  } else if (clean) {
    size_t gpus = 0;
    for (const auto& node : in.gpu) gpus += node.gpus.size();
    out.push_back({Severity::ok, "gpu", "",
                   fmt::format("{} GPUs on {} node(s), nvidia-smi answers and the kernel log is readable everywhere",
                               gpus, in.size()),
                   ""});
  }
  return true;
}

// torch's CUDA (what it was built for) against what the driver supports.
void check_driver_cuda(const GpuInput& in, Findings& out) {
  if (in.facts.size() != in.size()) return;
  bool any = false, clean = true;
  for (size_t i = 0; i < in.size(); ++i) {
    const NodeFacts& node = in.facts[i];
    if (!in.gpu[i].has_gpus() || node.cuda_driver_version.empty() || node.python.torch_cuda.empty()) continue;
    any = true;
    auto driver = major_minor(node.cuda_driver_version);
    auto torch = major_minor(node.python.torch_cuda);
    if (driver.first < 0 || torch.first < 0 || torch <= driver) continue;
    clean = false;
    bool major = torch.first > driver.first;
    out.push_back({major ? Severity::error : Severity::warning, "gpu-driver", in.names[i],
                   major ? fmt::format("torch on {} is built for CUDA {} but the driver supports CUDA {} at most: "
                                       "CUDA cannot start (\"the NVIDIA driver on your system is too old\")",
                                       in.names[i], node.python.torch_cuda, node.cuda_driver_version)
                         : fmt::format("torch on {} is built for CUDA {}, the driver supports CUDA {}: it runs through "
                                       "CUDA's minor-version compatibility, but kernels shipped as PTX for {} cannot "
                                       "be compiled by this driver",
                                       in.names[i], node.python.torch_cuda, node.cuda_driver_version,
                                       node.python.torch_cuda),
                   fmt::format("upgrade the NVIDIA driver to one for CUDA {} or later, or install a torch built for "
                               "CUDA {}",
                               node.python.torch_cuda, node.cuda_driver_version)});
  }
  if (any && clean) {
    out.push_back({Severity::ok, "gpu-driver", "", "the driver supports the CUDA torch was built for on every node",
                   ""});
  }
}

}  // namespace

std::string format_duration_ms(int64_t ms) {
  int64_t seconds = ms / 1000;
  if (seconds < 60) return fmt::format("{} s", seconds);
  if (seconds < 3600) return fmt::format("{} min {} s", seconds / 60, seconds % 60);
  if (seconds < 86400) return fmt::format("{} h {} min", seconds / 3600, seconds % 3600 / 60);
  return fmt::format("{} d {} h", seconds / 86400, seconds % 86400 / 3600);
}

std::vector<Finding> check_gpu_health(const std::vector<std::string>& names, const std::vector<GpuNodeFacts>& gpu,
                                      const std::vector<NodeFacts>& facts) {
  Findings out;
  GpuInput in{names, gpu, facts};
  if (gpu.size() != names.size() || !check_presence(in, out)) return out;
  check_driver_cuda(in, out);
  for (auto check : {gpu_detail::check_xids, gpu_detail::check_memory, gpu_detail::check_pcie,
                     gpu_detail::check_nvlink, gpu_detail::check_clocks, gpu_detail::check_persistence,
                     gpu_detail::check_mig, gpu_detail::check_busy, gpu_detail::check_fabric_manager,
                     gpu_detail::check_rdma, gpu_detail::check_ib_ports}) {
    check(in, out);
  }
  return out;
}

namespace gpu_detail {

std::string gpu_label(const GpuHealth& gpu) {
  std::string index = gpu.index >= 0 ? fmt::format("GPU {}", gpu.index) : std::string("a GPU");
  return gpu.pci.empty() ? index : fmt::format("{} ({})", index, gpu.pci);
}

std::string gpu_flag(const GpuHealth& gpu) { return gpu.index >= 0 ? fmt::format("-i {}", gpu.index) : ""; }

}  // namespace gpu_detail

}  // namespace muster::doctor
