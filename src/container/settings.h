// The container choices a distributed PyTorch job needs, in one place for every way muster runs one: `muster
// launch --container-image` (runtime_argv.h) and `muster gen compose` take the same options
// (--container-shm-size, --container-ulimit) and turn them into the same network, IPC, /dev/shm and ulimit
// settings through job_settings() here, so the two never disagree.
//   - host network: NCCL and gloo see the node's real NICs (no overlay network, no NAT, no port mapping);
//   - host IPC: the node's /dev/shm (large) and CUDA IPC between processes; given a /dev/shm size, a private IPC
//     namespace with a /dev/shm of that size instead (a size next to host IPC would mean nothing);
//   - memlock unlimited (NCCL over InfiniBand pins memory) and a 64 MiB stack, as NVIDIA's PyTorch images ask.
// Pure data and formatting; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::container {

inline constexpr std::string_view kNetwork = "host";
inline constexpr std::string_view kIpc = "host";
inline constexpr std::string_view kPrivateIpc = "private";
inline constexpr std::string_view kDefaultShmSize = "16g";  // Kubernetes' /dev/shm (a pod has no host IPC)

// One resource limit in the runtime's terms: `memlock=-1:-1`. -1 is unlimited.
struct Ulimit {
  std::string name;  // memlock, stack, nofile, nproc, core, ...
  int64_t soft = -1;
  int64_t hard = -1;

  std::string flag_value() const;  // "memlock=-1:-1" (docker and podman --ulimit)
  bool operator==(const Ulimit&) const = default;
};

inline constexpr int64_t kStackBytes = int64_t{64} << 20;

// memlock=-1:-1, stack=67108864:67108864.
std::vector<Ulimit> default_ulimits();

// "memlock=-1", "memlock=8388608:8388608", "nofile=1024:4096", "memlock=unlimited". Errors name the text.
Result<Ulimit> parse_ulimit(std::string_view text);

// The defaults with each of `overrides` replacing the limit of the same name (or added); the single override
// "none" means no ulimit at all (the runtime's own defaults).
Result<std::vector<Ulimit>> ulimits_with(const std::vector<std::string>& overrides);

// --container-shm-size as a job's container takes it: "" stays "" (the host's IPC namespace and /dev/shm), a
// size is written as docker and podman read it ("16G" -> "16g"). Errors name the option and the text.
Result<std::string> job_shm_size(std::string_view text);

// What a job's container gets from the size of its /dev/shm (job_shm_size: "" = the host's) and its ulimits.
struct JobSettings {
  std::string network;   // always host
  std::string ipc;       // host, or private when shm_size is set
  std::string shm_size;  // "" with host IPC
  std::vector<Ulimit> ulimits;
  bool operator==(const JobSettings&) const = default;
};
JobSettings job_settings(const std::string& shm_size, const std::vector<Ulimit>& ulimits);

}  // namespace muster::container
