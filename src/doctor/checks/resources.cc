// What each node gives the job: /dev/shm, locked memory, GPUs for the slots (and a torch that sees them), and
// a clock that agrees with the others.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "doctor/checks/support.h"

namespace muster::doctor::detail {

void check_shm(const CheckInput& in, Findings& out) {
  bool clean = true;
  for (std::size_t i = 0; i < in.size(); ++i) {
    int64_t shm = in.facts[i].shm_bytes;
    if (shm < 0 || shm >= in.options.min_shm_bytes) continue;
    clean = false;
    out.push_back(
        {Severity::warning, "shm", in.names[i],
         fmt::format("/dev/shm is {} (< {}): DataLoader workers and NCCL's shared-memory transport fail "
                     "with \"Bus error\"",
                     format_bytes(shm), format_bytes(in.options.min_shm_bytes)),
         "in docker: --shm-size=16g (compose: shm_size: 16g, or --ipc=host); on the host: sudo mount -o "
         "remount,size=16G /dev/shm"});
  }
  if (clean) {
    out.push_back(
        {Severity::ok, "shm", "",
         fmt::format("/dev/shm is at least {} on every node", format_bytes(in.options.min_shm_bytes)), ""});
  }
}

// Only nodes with GPUs or HCAs need pinned memory (NCCL, RDMA); -1 is unlimited, -2 unknown.
void check_memlock(const CheckInput& in, Findings& out) {
  bool clean = true;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const NodeFacts& node = in.facts[i];
    bool needs_pinning = !node.gpus.empty() || !node.infiniband.empty();
    if (!needs_pinning || node.memlock_bytes < 0 || node.memlock_bytes >= in.options.min_memlock_bytes)
      continue;
    clean = false;
    out.push_back(
        {Severity::warning, "memlock", in.names[i],
         fmt::format("locked-memory limit is {} (< {}): NCCL and InfiniBand cannot pin buffers",
                     format_bytes(node.memlock_bytes), format_bytes(in.options.min_memlock_bytes)),
         "ulimit -l unlimited (persist: `* - memlock unlimited` in /etc/security/limits.conf); in docker: "
         "--ulimit memlock=-1"});
  }
  if (clean) out.push_back({Severity::ok, "memlock", "", "locked-memory limit is enough on every node", ""});
}

namespace {

std::optional<Finding> torch_sees_no_gpu(const CheckInput& in, std::size_t i) {
  const NodeFacts& node = in.facts[i];
  if (node.gpus.empty() || !node.python.packages.contains("torch")) return std::nullopt;
  if (node.python.torch_cuda.empty()) {
    return Finding{
        Severity::error, "gpus", in.names[i],
        fmt::format("{} has {} GPU(s) but torch is a CPU build (torch.version.cuda is None)", in.names[i],
                    node.gpus.size()),
        fmt::format("pip install torch --index-url https://download.pytorch.org/whl/cu<XY> with CUDA <= {}",
                    node.cuda_driver_version.empty() ? "the driver's" : node.cuda_driver_version)};
  }
  if (node.python.torch_cuda_devices != 0) return std::nullopt;  // -1: not checked (doctor --import-torch)
  return Finding{Severity::error, "gpus", in.names[i],
                 fmt::format("{} has {} GPU(s) but torch (CUDA {}) sees none; the driver supports CUDA {}",
                             in.names[i], node.gpus.size(), node.python.torch_cuda,
                             node.cuda_driver_version.empty() ? "?" : node.cuda_driver_version),
                 "upgrade the NVIDIA driver, or install a torch built for the driver's CUDA version "
                 "(also check CUDA_VISIBLE_DEVICES)"};
}

}  // namespace

void check_gpus(const CheckInput& in, Findings& out) {
  bool clean = true;
  int slots = in.options.slots_per_node;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const NodeFacts& node = in.facts[i];
    int count = static_cast<int>(node.gpus.size());
    if (!node.nvidia_smi_error.empty()) {
      clean = false;
      out.push_back(
          {Severity::error, "gpus", in.names[i], fmt::format("nvidia-smi failed: {}", node.nvidia_smi_error),
           "reinstall or reload the NVIDIA driver (a reboot after a driver upgrade often fixes this)"});
    }
    if (slots > 0 && count > 0 && count < slots) {
      clean = false;
      out.push_back({Severity::error, "gpus", in.names[i],
                     fmt::format("{} has {} GPU(s) for {} slots", in.names[i], count, slots),
                     fmt::format("--nproc-per-node {} (or slots={} for {} in the hostfile)", count, count,
                                 in.names[i])});
    }
    if (auto finding = torch_sees_no_gpu(in, i)) {
      clean = false;
      out.push_back(std::move(*finding));
    }
  }
  if (!clean) return;
  if (!in.any_gpus()) {
    out.push_back({Severity::ok, "gpus", "", "no GPUs on any node: a CPU (gloo) job", ""});
    return;
  }
  auto [fewest, most] =
      std::minmax_element(in.facts.begin(), in.facts.end(),
                          [](const auto& a, const auto& b) { return a.gpus.size() < b.gpus.size(); });
  std::string use = slots > 0 && static_cast<int>(fewest->gpus.size()) > slots
                        ? fmt::format(" ({} used per node, {} idle)", slots,
                                      fewest->gpus.size() - static_cast<std::size_t>(slots))
                        : "";
  out.push_back({Severity::ok, "gpus", "",
                 fewest->gpus.size() == most->gpus.size()
                     ? fmt::format("{} GPU(s) on every node, visible to torch{}", most->gpus.size(), use)
                     : fmt::format("{} to {} GPUs per node, visible to torch{}", fewest->gpus.size(),
                                   most->gpus.size(), use),
                 ""});
}

void check_clock(const CheckInput& in, Findings& out) {
  const auto& offsets = in.options.clock_offsets_ms;
  std::vector<std::pair<int64_t, std::size_t>> clocks;  // (adjusted clock, node)
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in.facts[i].clock_unix_ms <= 0) continue;
    int64_t offset = offsets.size() == in.size() ? offsets[i] : 0;
    clocks.emplace_back(in.facts[i].clock_unix_ms - offset, i);
  }
  if (clocks.size() < 2) return;
  std::sort(clocks.begin(), clocks.end());
  int64_t skew = clocks.back().first - clocks.front().first;
  if (skew <= in.options.max_clock_skew_ms) {
    out.push_back({Severity::ok, "clock", "", fmt::format("clocks agree within {} ms", skew), ""});
    return;
  }
  int64_t median = clocks[clocks.size() / 2].first;
  auto furthest = std::max_element(clocks.begin(), clocks.end(), [&](const auto& a, const auto& b) {
    return std::llabs(a.first - median) < std::llabs(b.first - median);
  });
  int64_t off = furthest->first - median;
  out.push_back(
      {Severity::warning, "clock", in.names[furthest->second],
       fmt::format("clocks differ by {} ms (limit {} ms); {} is {} ms {} the others: log timestamps and "
                   "timeouts across nodes will not line up",
                   skew, in.options.max_clock_skew_ms, in.names[furthest->second], std::llabs(off),
                   off > 0 ? "ahead of" : "behind"),
       "sudo apt install chrony && sudo systemctl enable --now chrony (or: sudo timedatectl set-ntp true)"});
}

}  // namespace muster::doctor::detail
