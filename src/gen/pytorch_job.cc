#include "gen/pytorch_job.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "gen/container_checks.h"
#include "gen/plan_queries.h"
#include "gen/provenance.h"
#include "container/shm_size.h"
#include "gen/torchrun_command.h"
#include "gen/yaml_text.h"

namespace muster::gen {
namespace {

using Json = nlohmann::ordered_json;

// Pod and service names are `<job>-master-0`, `<job>-worker-N`: DNS labels of at most 63 characters.
constexpr size_t kMaxJobName = 48;

Result<void> check_dns_label(std::string_view flag, const std::string& name) {
  static const std::regex label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  if (name.size() <= kMaxJobName && std::regex_match(name, label)) return {};
  return make_error(
      ErrorKind::usage,
      "k8s: {} '{}' must be a DNS label: lowercase letters, digits and '-', starting and ending with "
      "a letter or digit, at most {} characters",
      flag, one_line(name), kMaxJobName);
}

Json container(const cluster::RankPlan& plan, const GenOptions& options, int workers, bool master) {
  TorchrunValues values{.nnodes = std::to_string(plan.nodes.size()),
                        .node_rank = "$(RANK)",
                        .master_addr = "$(MASTER_ADDR)",
                        .master_port = "$(MASTER_PORT)",
                        .nproc_per_node = std::to_string(workers)};
  Json spec = {{"name", "pytorch"}, {"image", options.container.image}};
  spec["command"] = torchrun_command(values, escape_dollars(options.command));
  if (!options.container.workdir.empty()) spec["workingDir"] = options.container.workdir;
  if (master)
    spec["ports"] = Json::array({{{"name", "pytorchjob-port"}, {"containerPort", options.master_port}}});
  spec["resources"] = {{"limits", {{"nvidia.com/gpu", workers}}}};
  spec["volumeMounts"] = Json::array({{{"name", "dshm"}, {"mountPath", "/dev/shm"}}});
  return spec;
}

Json replica_spec(const cluster::RankPlan& plan, const GenOptions& options, int workers, const container::ShmSize& shm,
                  int replicas, bool master) {
  Json shm_volume = {{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", shm.kubernetes()}}}};
  Json pod = {{"containers", Json::array({container(plan, options, workers, master)})},
              {"volumes", Json::array({shm_volume})}};
  return {{"replicas", replicas}, {"restartPolicy", "Never"}, {"template", {{"spec", pod}}}};
}

}  // namespace

Result<std::vector<GeneratedFile>> render_pytorch_job(const cluster::RankPlan& plan,
                                                      const GenOptions& options) {
  if (auto valid = check_container_options(options, "k8s"); !valid) return valid.error();
  if (auto valid = check_dns_label("--job-name", options.job_name); !valid) return valid.error();
  if (!options.container.k8s_namespace.empty()) {
    if (auto valid = check_dns_label("--namespace", options.container.k8s_namespace); !valid)
      return valid.error();
  }
  const std::string& size = options.container.shm_size;
  auto shm = container::parse_shm_size(size.empty() ? container::kDefaultShmSize : std::string_view(size));
  if (!shm) return shm.error();
  auto workers = uniform_workers(plan, "k8s", "every pod of a PyTorchJob gets the same nvidia.com/gpu limit");
  if (!workers) return workers.error();

  Json metadata = {{"name", options.job_name}};
  if (!options.container.k8s_namespace.empty()) metadata["namespace"] = options.container.k8s_namespace;
  Json replicas = {{"Master", replica_spec(plan, options, *workers, *shm, 1, true)}};
  const int worker_pods = static_cast<int>(plan.nodes.size()) - 1;
  if (worker_pods > 0) replicas["Worker"] = replica_spec(plan, options, *workers, *shm, worker_pods, false);
  Json job = {{"apiVersion", "kubeflow.org/v1"},
              {"kind", "PyTorchJob"},
              {"metadata", metadata},
              {"spec", {{"nprocPerNode", std::to_string(*workers)}, {"pytorchReplicaSpecs", replicas}}}};
  std::string text = generated_comment(options);
  text += fmt::format("# {} pods with {} GPU(s) each; submit with: kubectl apply -f {}.yaml\n",
                      plan.nodes.size(), *workers, options.job_name);
  text += to_yaml(job);
  return std::vector<GeneratedFile>{{.name = options.job_name + ".yaml", .text = text, .node_rank = -1}};
}

}  // namespace muster::gen
