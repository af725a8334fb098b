#include "gen/deepspeed_config.h"

#include <nlohmann/json.hpp>

#include "gen/provenance.h"

namespace muster::gen {
namespace {

using Json = nlohmann::ordered_json;

// DeepSpeed's own defaults, used where the HF style would say "auto".
constexpr long kBucketSize = 200'000'000;  // allgather/reduce buckets, stages 1-2 (HF template)
constexpr long kStage3ReduceBucketSize = 500'000'000;
constexpr long kStage3PrefetchBucketSize = 50'000'000;
constexpr long kStage3PersistenceThreshold = 100'000;
constexpr long kStage3Billion = 1'000'000'000;  // sub_group_size, max_live_parameters, max_reuse_distance

bool is_offload_device(const std::string& device) {
  return device == "none" || device == "cpu" || device == "nvme";
}

Json auto_or(bool hf_style, Json value) {
  return hf_style ? Json("auto") : std::move(value);
}

Json offload_block(const std::string& device, const std::string& nvme_path) {
  Json block = {{"device", device}};
  if (device == "nvme") block["nvme_path"] = nvme_path;
  block["pin_memory"] = true;
  return block;
}

Json zero_block(const DeepSpeedOptions& ds, int stage, bool hf_style) {
  Json zero = {{"stage", stage}};
  if (stage == 0) return zero;
  if (ds.offload_optimizer != "none")
    zero["offload_optimizer"] = offload_block(ds.offload_optimizer, ds.nvme_path);
  if (ds.offload_param != "none") zero["offload_param"] = offload_block(ds.offload_param, ds.nvme_path);
  if (stage < 3) {
    zero["allgather_partitions"] = true;
    zero["allgather_bucket_size"] = kBucketSize;
    zero["overlap_comm"] = true;
    zero["reduce_scatter"] = true;
    zero["reduce_bucket_size"] = kBucketSize;
    zero["contiguous_gradients"] = true;
    return zero;
  }
  zero["overlap_comm"] = true;
  zero["contiguous_gradients"] = true;
  zero["sub_group_size"] = kStage3Billion;
  zero["reduce_bucket_size"] = auto_or(hf_style, kStage3ReduceBucketSize);
  zero["stage3_prefetch_bucket_size"] = auto_or(hf_style, kStage3PrefetchBucketSize);
  zero["stage3_param_persistence_threshold"] = auto_or(hf_style, kStage3PersistenceThreshold);
  zero["stage3_max_live_parameters"] = kStage3Billion;
  zero["stage3_max_reuse_distance"] = kStage3Billion;
  zero["stage3_gather_16bit_weights_on_model_save"] = true;
  return zero;
}

Json fp16_block(Json enabled) {
  return {{"enabled", std::move(enabled)}, {"loss_scale", 0}, {"loss_scale_window", 1000},
          {"initial_scale_power", 16},     {"hysteresis", 2}, {"min_loss_scale", 1}};
}

// bf16/fp16 blocks: "auto" lets transformers/accelerate decide from their own flags; an explicit choice
// enables one and leaves the other out; "no" writes both as disabled.
void add_precision(Json& config, const std::string& precision, bool hf_style) {
  if (precision.empty() && !hf_style) return;  // plain DeepSpeed without a choice: fp32
  if (precision.empty() || precision == "no") {
    Json enabled = precision.empty() ? Json("auto") : Json(false);
    config["bf16"] = {{"enabled", enabled}};
    config["fp16"] = fp16_block(enabled);
  } else if (precision == "bf16") {
    config["bf16"] = {{"enabled", true}};
  } else {
    config["fp16"] = fp16_block(true);
  }
}

void add_batch(Json& config, const DeepSpeedOptions& ds, int world_size) {
  const bool hf_style = ds.micro_batch < 1;
  const int accumulation = ds.gradient_accumulation < 1 ? 1 : ds.gradient_accumulation;
  config["train_batch_size"] =
      auto_or(hf_style, static_cast<long>(ds.micro_batch) * accumulation * world_size);
  config["train_micro_batch_size_per_gpu"] = auto_or(hf_style, ds.micro_batch);
  config["gradient_accumulation_steps"] =
      ds.gradient_accumulation >= 1 ? Json(ds.gradient_accumulation) : auto_or(hf_style, 1);
  if (ds.gradient_clipping >= 0) {
    config["gradient_clipping"] = ds.gradient_clipping;
  } else if (hf_style) {
    config["gradient_clipping"] = "auto";
  }
}

}  // namespace

Result<void> check_deepspeed_options(const DeepSpeedOptions& options, int stage) {
  if (stage < 0 || stage > 3)
    return make_error(ErrorKind::usage, "ZeRO stage must be 0, 1, 2 or 3, found {}", stage);
  const auto& precision = options.mixed_precision;
  if (!precision.empty() && precision != "no" && precision != "fp16" && precision != "bf16") {
    return make_error(ErrorKind::usage, "mixed precision must be no, fp16 or bf16, found '{}'", precision);
  }
  for (const auto* device : {&options.offload_optimizer, &options.offload_param}) {
    if (!is_offload_device(*device)) {
      return make_error(ErrorKind::usage, "offload device must be none, cpu or nvme, found '{}'", *device);
    }
  }
  if (options.offload_optimizer != "none" && stage < 1) {
    return make_error(ErrorKind::usage, "--offload-optimizer needs ZeRO stage 1, 2 or 3 (--zero-stage)");
  }
  if (options.offload_param != "none" && stage != 3) {
    return make_error(ErrorKind::usage,
                      "--offload-param needs ZeRO stage 3 (--zero-stage 3); stage {} keeps "
                      "every parameter on every GPU",
                      stage);
  }
  return {};
}

Result<std::vector<GeneratedFile>> render_deepspeed_config(const cluster::RankPlan& plan,
                                                           const GenOptions& options) {
  const DeepSpeedOptions& ds = options.deepspeed;
  const int stage = ds.zero_stage < 0 ? kDefaultZeroStage : ds.zero_stage;
  if (auto valid = check_deepspeed_options(ds, stage); !valid) return valid.error();
  const bool hf_style = ds.micro_batch < 1;
  Json config = {{"_generated_by", generated_by(options)}};
  add_batch(config, ds, plan.world_size);
  config["steps_per_print"] = 2000;
  add_precision(config, ds.mixed_precision, hf_style);
  config["zero_optimization"] = zero_block(ds, stage, hf_style);
  config["wall_clock_breakdown"] = false;
  return std::vector<GeneratedFile>{
      {.name = "ds_config.json",
       .text = config.dump(2, ' ', false, Json::error_handler_t::replace) + "\n",
       .node_rank = -1}};
}

}  // namespace muster::gen
