// The container choices a distributed PyTorch job needs, in one place for every way muster runs one: `muster
// launch --container-image` (runtime_argv.h) and `muster gen compose` write the same network, IPC, /dev/shm and
// ulimit settings from here, so the two never disagree.
//   - host network: NCCL and gloo see the node's real NICs (no overlay network, no NAT, no port mapping);
//   - host IPC: the node's /dev/shm (large) and CUDA IPC between processes; with a private IPC namespace the
//     container gets its own /dev/shm of `shm_size` instead;
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
inline constexpr std::string_view kDefaultShmSize = "16g";  // used when the IPC namespace is private

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

}  // namespace muster::container
