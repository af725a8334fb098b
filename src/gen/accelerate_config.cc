#include "gen/accelerate_config.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gen/deepspeed_config.h"
#include "gen/plan_queries.h"
#include "gen/provenance.h"
#include "gen/yaml_text.h"

namespace muster::gen {
namespace {

using Json = nlohmann::json;  // sorted keys, like yaml.safe_dump

// The deepspeed_config block `accelerate config` writes when no ds_config file is given.
Json deepspeed_block(const DeepSpeedOptions& ds, int num_machines) {
  Json block = {{"zero_stage", ds.zero_stage},
                {"gradient_accumulation_steps", ds.gradient_accumulation < 1 ? 1 : ds.gradient_accumulation},
                {"zero3_init_flag", false}};
  if (ds.zero_stage >= 2 || ds.offload_optimizer != "none") {
    block["offload_optimizer_device"] = ds.offload_optimizer;
    block["offload_param_device"] = ds.offload_param;
    if (ds.offload_optimizer == "nvme") block["offload_optimizer_nvme_path"] = ds.nvme_path;
    if (ds.offload_param == "nvme") block["offload_param_nvme_path"] = ds.nvme_path;
  }
  if (ds.gradient_clipping >= 0) block["gradient_clipping"] = ds.gradient_clipping;
  if (ds.zero_stage == 3) block["zero3_save_16bit_model"] = false;
  if (num_machines > 1) block["deepspeed_multinode_launcher"] = "standard";
  return block;
}

Json node_config(const cluster::RankPlan& plan, const cluster::NodePlan& node, const GenOptions& options) {
  const DeepSpeedOptions& ds = options.deepspeed;
  const bool deepspeed = ds.zero_stage >= 0;
  const int num_machines = static_cast<int>(plan.nodes.size());
  Json config = {{"compute_environment", "LOCAL_MACHINE"},
                 {"debug", false},
                 {"distributed_type", deepspeed ? "DEEPSPEED" : "MULTI_GPU"},
                 {"downcast_bf16", "no"},
                 {"enable_cpu_affinity", false},
                 {"machine_rank", node.node_rank},
                 {"main_training_function", "main"},
                 {"mixed_precision", ds.mixed_precision.empty() ? "no" : ds.mixed_precision},
                 {"num_machines", num_machines},
                 {"num_processes", plan.world_size},
                 {"rdzv_backend", "static"},
                 {"same_network", true},
                 {"tpu_env", Json::array()},
                 {"tpu_use_cluster", false},
                 {"tpu_use_sudo", false},
                 {"use_cpu", false}};
  if (num_machines > 1) {
    config["main_process_ip"] = master_address(plan, options);
    config["main_process_port"] = options.master_port;
  }
  if (!deepspeed) config["gpu_ids"] = uses_first_devices(node) ? std::string("all") : device_list(node);
  if (deepspeed) {
    config["deepspeed_config"] = deepspeed_block(ds, num_machines);
    if (!uses_first_devices(node)) config["gpu_ids"] = device_list(node);
  }
  return config;
}

}  // namespace

Result<std::vector<GeneratedFile>> render_accelerate_configs(const cluster::RankPlan& plan,
                                                             const GenOptions& options) {
  const DeepSpeedOptions& ds = options.deepspeed;
  if (ds.zero_stage >= 0) {
    if (auto valid = check_deepspeed_options(ds, ds.zero_stage); !valid) return valid.error();
  } else if (ds.offload_optimizer != "none" || ds.offload_param != "none") {
    return make_error(ErrorKind::usage, "accelerate: offloading needs DeepSpeed; add --zero-stage");
  } else if (auto valid = check_deepspeed_options(ds, 0); !valid) {
    return valid.error();
  }
  auto workers = uniform_workers(
      plan, "accelerate", "accelerate launch starts num_processes / num_machines processes on every machine");
  if (!workers) return workers.error();
  std::vector<GeneratedFile> files;
  for (const auto& node : plan.nodes) {
    std::string name = node_file_name(plan, node, ".yaml");
    std::string text = generated_comment(options);
    text +=
        fmt::format("# machine {} of {} ({}): on {} run\n#   accelerate launch --config_file {} train.py\n",
                    node.node_rank, plan.nodes.size(), node.host.destination(), node.host.name, name);
    text += to_yaml(node_config(plan, node, options));
    files.push_back({.name = name, .text = text, .node_rank = node.node_rank});
  }
  return files;
}

}  // namespace muster::gen
