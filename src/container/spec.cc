#include "container/spec.h"

#include <nlohmann/json.hpp>

#include "util/text.h"

namespace muster::container {
namespace {

using Json = nlohmann::json;

Result<void> check_path(std::string_view text, std::string_view path) {
  if (!path.empty() && path.front() == '/') return {};
  return make_error(ErrorKind::usage, "--mount '{}': both paths must be absolute (SRC:DST or SRC:DST:ro)",
                    one_line(text));
}

}  // namespace

const char* runtime_name(Runtime runtime) { return runtime == Runtime::docker ? "docker" : "podman"; }

Result<Runtime> parse_runtime(std::string_view text) {
  if (text == "podman") return Runtime::podman;
  if (text == "docker") return Runtime::docker;
  return make_error(ErrorKind::usage, "container runtime '{}': muster knows podman and docker", one_line(text));
}

Result<GpuMode> parse_gpu_mode(std::string_view text) {
  if (text == "auto") return GpuMode::auto_detect;
  if (text == "all") return GpuMode::all;
  if (text == "none") return GpuMode::none;
  return make_error(ErrorKind::usage, "--container-gpus '{}': auto, all or none", one_line(text));
}

const char* gpu_mode_name(GpuMode mode) {
  return mode == GpuMode::all ? "all" : mode == GpuMode::none ? "none" : "auto";
}

Result<std::string> parse_pull_policy(std::string_view text) {
  if (text == "never" || text == "missing" || text == "always") return std::string(text);
  return make_error(ErrorKind::usage, "--container-pull '{}': never, missing or always", one_line(text));
}

Result<Mount> parse_mount(std::string_view text) {
  Mount mount;
  size_t first = text.find(':');
  if (first == std::string_view::npos) {
    return make_error(ErrorKind::usage, "--mount '{}' is not SRC:DST (or SRC:DST:ro)", one_line(text));
  }
  mount.source = std::string(text.substr(0, first));
  std::string_view rest = text.substr(first + 1);
  size_t second = rest.find(':');
  mount.target = std::string(rest.substr(0, second));
  if (second != std::string_view::npos) {
    std::string_view mode = rest.substr(second + 1);
    if (mode != "ro" && mode != "rw") {
      return make_error(ErrorKind::usage, "--mount '{}': the third field is ro or rw", one_line(text));
    }
    mount.read_only = mode == "ro";
  }
  if (auto ok = check_path(text, mount.source); !ok) return ok.error();
  if (auto ok = check_path(text, mount.target); !ok) return ok.error();
  return mount;
}

std::string to_json(const ContainerSpec& spec) {
  Json mounts = Json::array();
  for (const auto& m : spec.mounts) mounts.push_back({{"source", m.source}, {"target", m.target}, {"ro", m.read_only}});
  Json ulimits = Json::array();
  for (const auto& u : spec.ulimits) ulimits.push_back({{"name", u.name}, {"soft", u.soft}, {"hard", u.hard}});
  Json json = {{"runtime", spec.runtime}, {"image", spec.image},       {"existing", spec.existing},
               {"name", spec.name},       {"job", spec.job_id},        {"mounts", mounts},
               {"ulimits", ulimits},      {"shm_size", spec.shm_size}, {"gpus", gpu_mode_name(spec.gpus)}, {"pull", spec.pull},
               {"options", spec.options}, {"pass_env", spec.pass_env}};
  return json.dump();
}

Result<ContainerSpec> spec_from_json(std::string_view text) {
  try {
    Json json = Json::parse(text);
    ContainerSpec spec;
    spec.runtime = json.value("runtime", "");
    spec.image = json.value("image", "");
    spec.existing = json.value("existing", "");
    spec.name = json.value("name", "");
    spec.job_id = json.value("job", "");
    spec.mounts.clear();
    for (const auto& m : json.value("mounts", Json::array())) {
      spec.mounts.push_back({m.at("source").get<std::string>(), m.at("target").get<std::string>(),
                             m.value("ro", false)});
    }
    spec.ulimits.clear();
    for (const auto& u : json.value("ulimits", Json::array())) {
      spec.ulimits.push_back({u.at("name").get<std::string>(), u.at("soft").get<int64_t>(), u.at("hard").get<int64_t>()});
    }
    spec.shm_size = json.value("shm_size", "");
    auto gpus = parse_gpu_mode(json.value("gpus", "auto"));
    if (!gpus) return gpus.error();
    spec.gpus = *gpus;
    auto pull = parse_pull_policy(json.value("pull", "never"));
    if (!pull) return pull.error();
    spec.pull = *pull;
    spec.options = json.value("options", std::vector<std::string>{});
    spec.pass_env = json.value("pass_env", std::vector<std::string>{});
    if (spec.image.empty() == spec.existing.empty()) {
      return make_error(ErrorKind::usage, "container spec: exactly one of image and existing");
    }
    return spec;
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorKind::usage, "container spec: {}", e.what());
  }
}

std::string container_name(std::string_view job_id, int node_rank) {
  std::string name = "muster-";
  for (char c : job_id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-';
    name += ok ? c : '_';
  }
  return name + "-" + std::to_string(node_rank);
}

}  // namespace muster::container
