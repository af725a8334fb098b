#include "gen/compose_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "gen/container_checks.h"
#include "gen/plan_queries.h"
#include "gen/provenance.h"
#include "container/settings.h"
#include "gen/torchrun_command.h"
#include "gen/yaml_text.h"

namespace muster::gen {
namespace {

using Json = nlohmann::ordered_json;

Result<void> check_service_name(const std::string& name) {
  bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
  if (ok && std::isalnum(static_cast<unsigned char>(name.front()))) return {};
  return make_error(
      ErrorKind::usage,
      "compose: --job-name '{}' names the service: lowercase letters, digits, '._-', starting with a "
      "letter or digit",
      one_line(name));
}

Json gpu_reservation(const cluster::NodePlan& node) {
  Json device = {{"driver", "nvidia"}};
  if (uses_first_devices(node)) {
    device["count"] = node.ranks.size();
  } else {
    Json ids = Json::array();
    for (int id : node_devices(node)) ids.push_back(std::to_string(id));
    device["device_ids"] = ids;
  }
  device["capabilities"] = Json::array({"gpu"});
  return {{"resources", {{"reservations", {{"devices", Json::array({device})}}}}}};
}

// compose's ulimits: `memlock: -1` when soft and hard agree, else {soft, hard}.
Json compose_ulimits(const std::vector<container::Ulimit>& limits) {
  Json ulimits = Json::object();
  for (const auto& limit : limits) {
    if (limit.soft == limit.hard) ulimits[limit.name] = limit.soft;
    else ulimits[limit.name] = {{"soft", limit.soft}, {"hard", limit.hard}};
  }
  return ulimits;
}

// The same network, IPC, /dev/shm and ulimits as `muster launch --container-image` with the same options.
Json service(const cluster::RankPlan& plan, const cluster::NodePlan& node, const GenOptions& options,
             const container::JobSettings& settings) {
  const ContainerOptions& container = options.container;
  Json svc = {{"image", escape_dollars(container.image)},
              {"network_mode", settings.network},
              {"ipc", settings.ipc}};
  if (!settings.shm_size.empty()) svc["shm_size"] = settings.shm_size;
  if (!settings.ulimits.empty()) svc["ulimits"] = compose_ulimits(settings.ulimits);
  if (!container.workdir.empty()) svc["working_dir"] = escape_dollars(container.workdir);
  if (!container.volumes.empty()) svc["volumes"] = escape_dollars(container.volumes);
  TorchrunValues values{.nnodes = std::to_string(plan.nodes.size()),
                        .node_rank = std::to_string(node.node_rank),
                        .master_addr = master_address(plan, options),
                        .master_port = std::to_string(options.master_port),
                        .nproc_per_node = std::to_string(node.ranks.size())};
  svc["command"] = escape_dollars(torchrun_command(values, options.command));
  svc["deploy"] = gpu_reservation(node);
  return svc;
}

}  // namespace

Result<std::vector<GeneratedFile>> render_compose_files(const cluster::RankPlan& plan,
                                                        const GenOptions& options) {
  if (auto valid = check_container_options(options, "compose"); !valid) return valid.error();
  if (auto valid = check_service_name(options.job_name); !valid) return valid.error();
  auto shm = container::job_shm_size(options.container.shm_size);
  if (!shm) return shm.error();
  auto ulimits = container::ulimits_with(options.container.ulimits);
  if (!ulimits) return ulimits.error();
  container::JobSettings settings = container::job_settings(*shm, *ulimits);
  std::vector<GeneratedFile> files;
  for (const auto& node : plan.nodes) {
    std::string name = node_file_name(plan, node, ".compose.yaml");
    std::string text = generated_comment(options);
    text += fmt::format("# node {} of {} ({}): on {} run\n#   docker compose -f {} up\n", node.node_rank,
                        plan.nodes.size(), node.host.destination(), node.host.name, name);
    Json document = {{"services", {{options.job_name, service(plan, node, options, settings)}}}};
    text += to_yaml(document);
    files.push_back({.name = name, .text = text, .node_rank = node.node_rank});
  }
  return files;
}

}  // namespace muster::gen
