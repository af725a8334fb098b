// `muster launch --container-image IMAGE` / `--container NAME`: the flags turned into the container spec every
// node's agent gets (container/spec.h), and the agent arguments that carry it. The working directory and every
// --sync'ed directory are mounted at the same paths, so a job sees its code where it would on bare metal; the
// container is named after the job and the node (muster-<job>-<node rank>) and labelled with the job id.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "container/spec.h"
#include "util/result.h"

namespace muster::launch {

struct ContainerRequest {
  std::string image;      // --container-image
  std::string existing;   // --container
  std::string runtime;    // --container-runtime: "" (podman if installed, else docker), podman, docker
  std::vector<std::string> mounts;   // --mount SRC:DST[:ro]
  std::vector<std::string> ulimits;  // --container-ulimit NAME=SOFT[:HARD] | none
  std::string shm_size;              // --container-shm-size: a private /dev/shm of this size (default: host IPC)
  std::string gpus = "auto";         // --container-gpus
  std::string pull = "never";        // --container-pull
  std::vector<std::string> options;  // --container-option (verbatim runtime options)

  bool wanted() const { return !image.empty() || !existing.empty(); }
};

// nullopt when no container was asked for; an error (usage) names the flag that is wrong. `cwd` and
// `same_path_dirs` (the --sync directories) are mounted at the same paths in a new container.
Result<std::optional<container::ContainerSpec>> resolve_container(const ContainerRequest& request,
                                                                  const std::string& cwd,
                                                                  const std::vector<std::string>& same_path_dirs);

// `--container-spec JSON` for node `node_rank` of job `job_id`.
std::vector<std::string> container_agent_args(const container::ContainerSpec& base, const std::string& job_id,
                                              int node_rank);

// A failed start with a hint when the runtime's message says what to do (an image missing on the node, a
// ulimit the node refuses).
Error explain_container_error(const Error& error, const container::ContainerSpec& spec);

}  // namespace muster::launch
