// Gathering NodeFacts on this node: what `muster node facts` prints. Runs nvidia-smi, nvcc and the Python
// probe concurrently (each bounded by a timeout, killed past it) while it reads /etc/os-release, /sys,
// statfs, getaddrinfo and hashes the requested paths; so the whole gather costs about one `import torch`.
//
// gather() never fails as a whole: what cannot be learned is left at its default, and the failures that
// matter to a user (nvidia-smi present but broken, Python missing) are recorded in the facts' error fields.
#pragma once

#include <string>
#include <vector>

#include "doctor/node/node_facts.h"
#include "doctor/node/tree_hash.h"

namespace muster::doctor {

struct GatherOptions {
  std::string python = "python3";    // the interpreter to probe (looked up in PATH unless it has a '/')
  std::vector<std::string> paths;    // directories (or files) to describe and hash
  std::vector<std::string> resolve;  // names to resolve with this node's resolver
  int timeout_ms = 10000;            // for each external command
  bool import_torch = false;         // see python_probe_script()
  bool caches = false;               // the job's cache directories (node/cache_dirs.h), from this environment
  TreeHashLimits tree_limits{};
  // The job runs in containers of this image: the runtime, the image's id, what passing GPUs needs, and the
  // python probe run inside the image instead of on the node (NodeFacts::container).
  std::string container_image;
  std::string container_runtime;  // "" = podman if installed, else docker
  bool operator==(const GatherOptions&) const = default;
};

NodeFacts gather(const GatherOptions& options);

}  // namespace muster::doctor
