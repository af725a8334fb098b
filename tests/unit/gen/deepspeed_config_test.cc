#include "gen/deepspeed_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "util/version.h"

namespace muster::gen {
namespace {

cluster::NodeSlots node(std::string name, std::vector<int> slots) {
  return {.host = {.name = std::move(name)}, .slots = std::move(slots)};
}

const cluster::RankPlan kTwoNodes = cluster::make_rank_plan({node("node1", {0, 1}), node("node2", {0, 1})});

std::string render_ok(const cluster::RankPlan& plan, const GenOptions& options) {
  auto files = render_deepspeed_config(plan, options);
  EXPECT_TRUE(files) << files.error().message;
  if (!files) return "";
  EXPECT_EQ(files->size(), 1u);
  EXPECT_EQ(files->front().name, "ds_config.json");
  return files->front().text;
}

std::string generated_by_line(std::string_view command_line) {
  return std::string("  \"_generated_by\": \"muster ") + kVersion + ": " + std::string(command_line) +
         "\",\n";
}

TEST(DeepSpeedConfig, DefaultIsStageTwoInTheHfAutoStyle) {
  GenOptions options;
  options.command_line = "muster gen deepspeed";
  EXPECT_EQ(render_ok(kTwoNodes, options), "{\n" + generated_by_line("muster gen deepspeed") +
                                               "  \"train_batch_size\": \"auto\",\n"
                                               "  \"train_micro_batch_size_per_gpu\": \"auto\",\n"
                                               "  \"gradient_accumulation_steps\": \"auto\",\n"
                                               "  \"gradient_clipping\": \"auto\",\n"
                                               "  \"steps_per_print\": 2000,\n"
                                               "  \"bf16\": {\n"
                                               "    \"enabled\": \"auto\"\n"
                                               "  },\n"
                                               "  \"fp16\": {\n"
                                               "    \"enabled\": \"auto\",\n"
                                               "    \"loss_scale\": 0,\n"
                                               "    \"loss_scale_window\": 1000,\n"
                                               "    \"initial_scale_power\": 16,\n"
                                               "    \"hysteresis\": 2,\n"
                                               "    \"min_loss_scale\": 1\n"
                                               "  },\n"
                                               "  \"zero_optimization\": {\n"
                                               "    \"stage\": 2,\n"
                                               "    \"allgather_partitions\": true,\n"
                                               "    \"allgather_bucket_size\": 200000000,\n"
                                               "    \"overlap_comm\": true,\n"
                                               "    \"reduce_scatter\": true,\n"
                                               "    \"reduce_bucket_size\": 200000000,\n"
                                               "    \"contiguous_gradients\": true\n"
                                               "  },\n"
                                               "  \"wall_clock_breakdown\": false\n"
                                               "}\n");
}

TEST(DeepSpeedConfig, StageThreePlainStyleWithOffloadAndConcreteBatchSizes) {
  GenOptions options;
  options.command_line = "muster gen deepspeed --zero-stage 3";
  options.deepspeed.zero_stage = 3;
  options.deepspeed.micro_batch = 4;
  options.deepspeed.gradient_accumulation = 8;
  options.deepspeed.gradient_clipping = 1.0;
  options.deepspeed.mixed_precision = "fp16";
  options.deepspeed.offload_optimizer = "cpu";
  options.deepspeed.offload_param = "nvme";
  options.deepspeed.nvme_path = "/local_nvme";
  EXPECT_EQ(render_ok(kTwoNodes, options), "{\n" + generated_by_line("muster gen deepspeed --zero-stage 3") +
                                               "  \"train_batch_size\": 128,\n"
                                               "  \"train_micro_batch_size_per_gpu\": 4,\n"
                                               "  \"gradient_accumulation_steps\": 8,\n"
                                               "  \"gradient_clipping\": 1.0,\n"
                                               "  \"steps_per_print\": 2000,\n"
                                               "  \"fp16\": {\n"
                                               "    \"enabled\": true,\n"
                                               "    \"loss_scale\": 0,\n"
                                               "    \"loss_scale_window\": 1000,\n"
                                               "    \"initial_scale_power\": 16,\n"
                                               "    \"hysteresis\": 2,\n"
                                               "    \"min_loss_scale\": 1\n"
                                               "  },\n"
                                               "  \"zero_optimization\": {\n"
                                               "    \"stage\": 3,\n"
                                               "    \"offload_optimizer\": {\n"
                                               "      \"device\": \"cpu\",\n"
                                               "      \"pin_memory\": true\n"
                                               "    },\n"
                                               "    \"offload_param\": {\n"
                                               "      \"device\": \"nvme\",\n"
                                               "      \"nvme_path\": \"/local_nvme\",\n"
                                               "      \"pin_memory\": true\n"
                                               "    },\n"
                                               "    \"overlap_comm\": true,\n"
                                               "    \"contiguous_gradients\": true,\n"
                                               "    \"sub_group_size\": 1000000000,\n"
                                               "    \"reduce_bucket_size\": 500000000,\n"
                                               "    \"stage3_prefetch_bucket_size\": 50000000,\n"
                                               "    \"stage3_param_persistence_threshold\": 100000,\n"
                                               "    \"stage3_max_live_parameters\": 1000000000,\n"
                                               "    \"stage3_max_reuse_distance\": 1000000000,\n"
                                               "    \"stage3_gather_16bit_weights_on_model_save\": true\n"
                                               "  },\n"
                                               "  \"wall_clock_breakdown\": false\n"
                                               "}\n");
}

TEST(DeepSpeedConfig, TrainBatchSizeCountsEveryRankOfAnUnevenPlan) {
  auto plan = cluster::make_rank_plan({node("node1", {0, 1}), node("node2", {0, 1, 2})});
  GenOptions options;
  options.deepspeed.micro_batch = 2;
  auto config = nlohmann::json::parse(render_ok(plan, options));
  EXPECT_EQ(config["train_batch_size"], 10);  // 2 per GPU x 1 step x 5 ranks
  EXPECT_EQ(config["gradient_accumulation_steps"], 1);
  EXPECT_FALSE(config.contains("gradient_clipping"));
  EXPECT_FALSE(config.contains("bf16"));  // plain style without a precision: fp32
}

TEST(DeepSpeedConfig, StageZeroAndPrecisionChoices) {
  GenOptions options;
  options.deepspeed.zero_stage = 0;
  options.deepspeed.mixed_precision = "bf16";
  auto config = nlohmann::json::parse(render_ok(kTwoNodes, options));
  EXPECT_EQ(config["zero_optimization"], nlohmann::json({{"stage", 0}}));
  EXPECT_EQ(config["bf16"], nlohmann::json({{"enabled", true}}));
  EXPECT_FALSE(config.contains("fp16"));
  options.deepspeed.mixed_precision = "no";
  config = nlohmann::json::parse(render_ok(kTwoNodes, options));
  EXPECT_EQ(config["bf16"]["enabled"], false);
  EXPECT_EQ(config["fp16"]["enabled"], false);
}

TEST(DeepSpeedConfig, InvalidUtf8InTheCommandLineIsReplacedNotThrown) {
  GenOptions options;
  options.command_line = "muster gen deepspeed --nvme-path /\xff";
  auto config = nlohmann::json::parse(render_ok(kTwoNodes, options));
  EXPECT_TRUE(config["_generated_by"].get<std::string>().ends_with(" /\xef\xbf\xbd"))
      << config["_generated_by"];
}

TEST(DeepSpeedConfig, SettingsThatContradictTheStageAreUsageErrors) {
  GenOptions options;
  options.deepspeed.zero_stage = 2;
  options.deepspeed.offload_param = "cpu";
  auto files = render_deepspeed_config(kTwoNodes, options);
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().kind, ErrorKind::usage);
  EXPECT_EQ(
      files.error().message,
      "--offload-param needs ZeRO stage 3 (--zero-stage 3); stage 2 keeps every parameter on every GPU");
  options.deepspeed = {};
  options.deepspeed.zero_stage = 0;
  options.deepspeed.offload_optimizer = "cpu";
  EXPECT_FALSE(render_deepspeed_config(kTwoNodes, options));
  options.deepspeed = {};
  options.deepspeed.zero_stage = 4;
  EXPECT_FALSE(render_deepspeed_config(kTwoNodes, options));
  options.deepspeed = {};
  options.deepspeed.mixed_precision = "fp8";
  EXPECT_FALSE(render_deepspeed_config(kTwoNodes, options));
}

}  // namespace
}  // namespace muster::gen
