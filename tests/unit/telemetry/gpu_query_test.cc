#include "telemetry/gpu_query.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "util/text.h"

namespace muster::telemetry {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(MUSTER_TELEMETRY_FIXTURES) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(GpuQuery, EightBusyGpus) {
  std::vector<GpuReading> gpus;
  std::string text = fixture("nvidia-smi-query-8gpu.csv");
  for (auto line : split_lines(text)) {
    if (auto gpu = parse_gpu_line(line)) gpus.push_back(*gpu);
  }
  ASSERT_EQ(gpus.size(), 8u);
  const GpuSample& g = gpus[0].sample;
  EXPECT_EQ(g.index, 0u);
  EXPECT_EQ(g.util_pct, 98u);
  EXPECT_EQ(g.mem_used_mib, 71234u);
  EXPECT_EQ(g.mem_total_mib, 81559u);
  EXPECT_EQ(g.power_dw, 6523u);
  EXPECT_EQ(g.power_limit_dw, 7000u);
  EXPECT_EQ(g.sm_mhz, 1980u);
  EXPECT_EQ(g.throttle, 0u);
  EXPECT_EQ(g.ecc_uncorrected, 0u);
  EXPECT_EQ(gpus[0].uuid, "GPU-6b3f2a1e-0c4d-4f57-9a1e-1f2d3c4b5a60");
  EXPECT_EQ(short_pci(gpus[2].pci), "0000:3a:00");
  EXPECT_EQ(gpus[4].sample.ecc_uncorrected, kNone);  // [N/A]
}

TEST(GpuQuery, ThrottledAndUnsupportedFields) {
  std::vector<GpuReading> gpus;
  std::string text = fixture("nvidia-smi-query-throttled.csv");
  for (auto line : split_lines(text)) {
    if (auto gpu = parse_gpu_line(line)) gpus.push_back(*gpu);
  }
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0].sample.throttle, kThrottleSwThermal | kThrottleHwThermal);
  EXPECT_EQ(throttle_reasons_text(gpus[0].sample.throttle), "thermal (software), thermal (hardware)");
  EXPECT_EQ(gpus[1].sample.throttle, kThrottleSwPowerCap);
  EXPECT_EQ(gpus[1].sample.ecc_uncorrected, 2u);
  EXPECT_EQ(gpus[2].sample.util_pct, kNone);
  EXPECT_EQ(gpus[2].sample.power_dw, kNone);
  EXPECT_EQ(gpus[2].sample.sm_max_mhz, 1410u);
}

TEST(GpuQuery, NotAGpuLine) {
  EXPECT_FALSE(parse_gpu_line("Field \"clocks_throttle_reasons.active\" is not a valid field to query."));
  EXPECT_FALSE(parse_gpu_line(""));
  EXPECT_FALSE(parse_gpu_line("index, uuid"));
}

TEST(GpuQuery, ComputeApps) {
  auto apps = parse_compute_apps(fixture("nvidia-smi-compute-apps.csv") + "No running processes found\n");
  ASSERT_EQ(apps.size(), 3u);
  EXPECT_EQ(apps[1].pid, 5151);
  EXPECT_EQ(apps[1].used_mib, 1800u);
  EXPECT_EQ(apps[2].used_mib, 0u);
}

TEST(GpuQuery, CommandLines) {
  auto argv = gpu_query_argv(1000);
  ASSERT_EQ(argv.size(), 4u);
  EXPECT_EQ(argv[0], "nvidia-smi");
  EXPECT_EQ(argv[3], "--loop-ms=1000");
  EXPECT_NE(argv[1].find("clocks.max.sm"), std::string::npos);
}

}  // namespace
}  // namespace muster::telemetry
