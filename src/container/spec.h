// What the head asks one node for when a job runs in containers: run the agent inside a new container of
// `image` (or inside the running container `existing`), with these mounts, limits and GPUs. The head builds
// one per node (launch/container_launch.h) and passes it as JSON on the agent's command line
// (`muster agent --container-spec JSON ...`); the node turns it into the runtime's argv (runtime_argv.h) and
// execs it (enter.h). Plain data; to_json/from_json are the only encoding.
#pragma once

#include <string>
#include <vector>

#include "container/settings.h"
#include "util/result.h"

namespace muster::container {

enum class Runtime { podman, docker };
const char* runtime_name(Runtime runtime);
// "podman" or "docker"; anything else is a usage error naming the text.
Result<Runtime> parse_runtime(std::string_view text);

// GPUs in the container: all of the node's when it has any (auto), all (an error if the node cannot pass
// them), or none.
enum class GpuMode { auto_detect, all, none };
Result<GpuMode> parse_gpu_mode(std::string_view text);
const char* gpu_mode_name(GpuMode mode);

struct Mount {
  std::string source;  // on the node
  std::string target;  // in the container
  bool read_only = false;
  bool operator==(const Mount&) const = default;
};
// never, missing or always.
Result<std::string> parse_pull_policy(std::string_view text);

// "SRC:DST" or "SRC:DST:ro" / ":rw"; both paths absolute. Errors name the text.
Result<Mount> parse_mount(std::string_view text);

struct ContainerSpec {
  // "" = podman when the node has it, else docker (decided on the node).
  std::string runtime;
  std::string image;     // a new container of this image (the usual case) ...
  std::string existing;  // ... or the agent joins this running container (`--container NAME`)
  std::string name;      // the new container's name (muster-<job>-<node rank>)
  std::string job_id;    // label muster.job=<job id>
  std::vector<Mount> mounts;
  std::vector<Ulimit> ulimits = default_ulimits();
  std::string shm_size;  // "" = the host's IPC namespace and /dev/shm; else a private one of this size
  GpuMode gpus = GpuMode::auto_detect;
  std::string pull = "never";  // the runtime's --pull: never (images come from `muster image push`), missing, always
  std::vector<std::string> options;  // more runtime options, verbatim, before the image
  // Variables passed from the node's environment into the container by name (`-e NAME`, the value never on a
  // command line), when set there: what the agent reads (SSH_CONNECTION: the address the head reached the node
  // on) and what a bare-metal worker would inherit from a Slurm step (SLURM_*, CUDA_VISIBLE_DEVICES from gres).
  // "PREFIX*" stands for every variable with that prefix.
  std::vector<std::string> pass_env = {"SSH_CONNECTION", "SLURM_*", "CUDA_VISIBLE_DEVICES"};

  bool operator==(const ContainerSpec&) const = default;
};

std::string to_json(const ContainerSpec& spec);
// Errors (usage) say what is wrong with the text.
Result<ContainerSpec> spec_from_json(std::string_view text);

// A container name from a job id: `muster-<job>-<node rank>`, with characters a runtime refuses in names
// replaced by '_'.
std::string container_name(std::string_view job_id, int node_rank);

}  // namespace muster::container
