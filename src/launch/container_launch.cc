#include "launch/container_launch.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>

#include <fmt/format.h>

#include "posix/file.h"

namespace muster::launch {
namespace {

void add_same_path_mount(std::vector<container::Mount>& mounts, const std::string& path) {
  std::string absolute = posix::absolute_path(path);
  bool taken = std::any_of(mounts.begin(), mounts.end(), [&](const container::Mount& m) { return m.target == absolute; });
  if (!taken) mounts.push_back({absolute, absolute, false});
}

// "error setting rlimit type 7" (runc) or "setrlimit `RLIMIT_NOFILE`" (crun) -> "nofile"; "" if neither.
std::string refused_rlimit(const std::string& text) {
  static const char* names[] = {"cpu", "fsize", "data", "stack", "core", "rss", "nproc", "nofile", "memlock", "as"};
  if (size_t at = text.find("rlimit type "); at != std::string::npos) {
    size_t type = static_cast<size_t>(std::atoi(text.c_str() + at + 12));
    return type < std::size(names) ? names[type] : "a limit";
  }
  if (size_t at = text.find("RLIMIT_"); at != std::string::npos) {
    std::string name;
    for (size_t i = at + 7; i < text.size() && std::isupper(static_cast<unsigned char>(text[i])); ++i) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    }
    return name;
  }
  return "";
}

}  // namespace

Result<std::optional<container::ContainerSpec>> resolve_container(const ContainerRequest& request,
                                                                  const std::string& cwd,
                                                                  const std::vector<std::string>& same_path_dirs) {
  if (!request.wanted()) {
    bool stray = !request.mounts.empty() || !request.ulimits.empty() || !request.shm_size.empty() ||
                 !request.runtime.empty() || !request.options.empty();
    if (stray) {
      return make_error(ErrorKind::usage, "--mount and --container-* options need --container-image IMAGE (or "
                                          "--container NAME)");
    }
    return std::optional<container::ContainerSpec>{};
  }
  if (!request.image.empty() && !request.existing.empty()) {
    return make_error(ErrorKind::usage, "--container-image starts a new container, --container joins a running "
                                        "one: give one of them");
  }
  container::ContainerSpec spec;
  spec.image = request.image;
  spec.existing = request.existing;
  if (!request.runtime.empty()) {
    auto runtime = container::parse_runtime(request.runtime);
    if (!runtime) return runtime.error();
    spec.runtime = request.runtime;
  }
  auto gpus = container::parse_gpu_mode(request.gpus);
  if (!gpus) return gpus.error();
  spec.gpus = *gpus;
  auto pull = container::parse_pull_policy(request.pull);
  if (!pull) return pull.error();
  spec.pull = *pull;
  spec.options = request.options;
  if (!spec.existing.empty()) {
    if (!request.mounts.empty() || !request.ulimits.empty() || !request.shm_size.empty()) {
      return make_error(ErrorKind::usage, "--container {} joins a running container: its mounts, limits and "
                                          "/dev/shm are set already (--mount and --container-ulimit/-shm-size "
                                          "apply to --container-image)",
                        spec.existing);
    }
    return std::optional<container::ContainerSpec>(std::move(spec));
  }
  auto limits = container::ulimits_with(request.ulimits);
  if (!limits) return limits.error();
  spec.ulimits = std::move(*limits);
  auto shm = container::job_shm_size(request.shm_size);
  if (!shm) return shm.error();
  spec.shm_size = std::move(*shm);
  for (const auto& text : request.mounts) {
    auto mount = container::parse_mount(text);
    if (!mount) return mount.error();
    spec.mounts.push_back(*mount);
  }
  add_same_path_mount(spec.mounts, cwd);
  for (const auto& dir : same_path_dirs) add_same_path_mount(spec.mounts, dir);
  return std::optional<container::ContainerSpec>(std::move(spec));
}

std::vector<std::string> container_agent_args(const container::ContainerSpec& base, const std::string& job_id,
                                              int node_rank) {
  container::ContainerSpec spec = base;
  spec.job_id = job_id;
  if (spec.existing.empty()) spec.name = container::container_name(job_id, node_rank);
  return {"--container-spec", container::to_json(spec)};
}

Error explain_container_error(const Error& error, const container::ContainerSpec& spec) {
  const std::string& text = error.message;
  std::string hint;
  if (!spec.image.empty() && (text.find("image not known") != std::string::npos ||
                              text.find("No such image") != std::string::npos ||
                              text.find("pull access denied") != std::string::npos)) {
    hint = fmt::format("copy the image to the nodes first: muster image push {} -w ... (or --container-pull "
                       "missing to let the nodes pull it)", spec.image);
  } else if (auto limit = refused_rlimit(text); !limit.empty()) {
    bool ours = std::any_of(spec.ulimits.begin(), spec.ulimits.end(), [&](auto& u) { return u.name == limit; });
    hint = ours ? fmt::format("the node may not raise {} that far: raise its hard limit there, or give another "
                              "with --container-ulimit {}=SOFT:HARD (or --container-ulimit none for the "
                              "runtime's defaults)", limit, limit)
                : fmt::format("podman sets {} itself (to its maximum) when any --ulimit is given, and the node "
                              "may not raise it that far: give it with --container-ulimit {}=SOFT:HARD (the "
                              "node's `ulimit -H`), or --container-ulimit none", limit, limit);
  } else if (!spec.existing.empty() && (text.find("no such container") != std::string::npos ||
                                        text.find("No such container") != std::string::npos ||
                                        text.find("does not exist") != std::string::npos)) {
    hint = fmt::format("start container {} on every node first (e.g. docker compose up -d), or use "
                       "--container-image to let muster start one", spec.existing);
  }
  Error explained = error;
  if (!hint.empty()) explained.message += "\n  hint: " + hint;
  return explained;
}

}  // namespace muster::launch
