// `muster gen deepspeed`: a ds_config JSON skeleton for ZeRO stage 0-3, in the shape of the Hugging Face
// DeepSpeed integration's templates.
//
// Two styles:
//   - default (HF): batch sizes, gradient accumulation, clipping, fp16/bf16 `enabled` and the ZeRO-3 bucket
//     sizes are "auto", which transformers' Trainer and accelerate fill from their own arguments. Plain
//     deepspeed.initialize() refuses "auto".
//   - --micro-batch N: every value concrete, for plain DeepSpeed: train_batch_size = N x gradient
//     accumulation x world size of the plan, bucket sizes DeepSpeed's defaults.
// Stage-appropriate zero_optimization keys: stage 0 only `stage`; 1 and 2 the bucket and overlap settings;
// 3 adds stage3_* and sub_group_size; offload_optimizer (stage >= 1) and offload_param (stage 3) on request.
//
// Provenance: JSON has no comments (transformers reads the file with json.load, so hjson comments would
// break it). The file gets a top-level "_generated_by" key: DeepSpeedConfig reads its top level key by key
// (get_scalar_param and friends) and never rejects an unknown top-level key, while its pydantic sub-configs
// (zero_optimization, ...) do forbid unknown keys -- so the key goes at the top level only. transformers and
// accelerate only look for "auto" values and leave other keys alone. Pure.
#pragma once

#include <string>
#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

inline constexpr int kDefaultZeroStage = 2;

// Usage errors for settings that contradict the stage (offload_param below stage 3, ...), for ds_config and
// accelerate's deepspeed_config alike.
Result<void> check_deepspeed_options(const DeepSpeedOptions& options, int stage);

Result<std::vector<GeneratedFile>> render_deepspeed_config(const cluster::RankPlan& plan,
                                                           const GenOptions& options);

}  // namespace muster::gen
