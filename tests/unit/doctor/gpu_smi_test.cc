// nvidia-smi's outputs for --gpu parsed from the fixtures (tests/gpu/fixtures: written from NVIDIA's documented
// formats, none recorded; see its README), the refused-field fallback included, and the /sys and /proc trees.
#include <gtest/gtest.h>

#include "doctor/gpu/node_sysfs.h"
#include "doctor/gpu/smi_output.h"
#include "gpu_fixture_support.h"

namespace muster::doctor {
namespace {

using test::gpu_facts_from_fixture;

TEST(GpuSmi, HealthyH100) {
  auto facts = gpu_facts_from_fixture("h100-healthy");
  ASSERT_EQ(facts.gpus.size(), 8u);
  const GpuHealth& gpu = facts.gpus[3];
  EXPECT_EQ(gpu.index, 3);
  EXPECT_EQ(gpu.pci, "0000:5d:00");
  EXPECT_EQ(gpu.uuid, "GPU-0f1e2d3c-4b5a-4697-a8b9-cadbecfd0e1f");
  EXPECT_EQ(gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.persistence, "Enabled");
  EXPECT_EQ(gpu.mig_current, "Disabled");
  EXPECT_EQ(gpu.ecc_volatile_uncorrected, 0);
  EXPECT_EQ(gpu.retired_dbe, -1);  // [N/A] on H100: remapped rows instead
  EXPECT_EQ(gpu.remap_pending, "No");
  EXPECT_EQ(gpu.pcie_gen, 5);
  EXPECT_EQ(gpu.pcie_width_max, 16);
  EXPECT_EQ(gpu.throttle_reasons, 1);  // GPU idle
  EXPECT_EQ(gpu.memory_total_mib, 81559);
  EXPECT_EQ(gpu.fabric_state, "Completed");
  ASSERT_EQ(gpu.nvlinks.size(), 18u);
  EXPECT_TRUE(gpu.nvlinks[17].active);
  EXPECT_DOUBLE_EQ(gpu.nvlinks[17].gb_per_s, 26.562);
  EXPECT_EQ(gpu.nvlinks[17].crc, 0);
  EXPECT_TRUE(facts.processes.empty());
  EXPECT_TRUE(facts.xids.empty());
  // The H100 fixture's driver knows the throttle reasons only under their newer name.
  EXPECT_EQ(facts.unknown_fields, (std::vector<std::string>{"clocks_throttle_reasons.active"}));
}

TEST(GpuSmi, AnOlderDriverRefusesFieldsAndIsAskedAgain) {
  auto facts = gpu_facts_from_fixture("v100-old-driver");
  EXPECT_EQ(facts.unknown_fields, (std::vector<std::string>{"fabric.state", "fabric.status"}));
  ASSERT_EQ(facts.gpus.size(), 4u);
  EXPECT_EQ(facts.gpus[1].retired_pending, "Yes");
  EXPECT_EQ(facts.gpus[1].retired_dbe, 2);
  EXPECT_EQ(facts.gpus[1].remap_pending, "");  // no row remapper before A100: the query fails
  EXPECT_EQ(facts.gpus[1].mig_current, "");     // [N/A]
  EXPECT_EQ(facts.gpus[1].throttle_reasons, 0);
  ASSERT_EQ(facts.gpus[1].nvlinks.size(), 6u);
  EXPECT_DOUBLE_EQ(facts.gpus[1].nvlinks[0].gb_per_s, 25.781);
}

TEST(GpuSmi, RefusedField) {
  EXPECT_EQ(refused_field("Field \"fabric.state\" is not a valid field to query.\n\nRun ..."), "fabric.state");
  EXPECT_FALSE(refused_field("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."));
  std::vector<std::string> fields = {"index", "clocks_throttle_reasons.active", "fabric.state", "name"};
  EXPECT_TRUE(next_query_fields(fields, "clocks_throttle_reasons.active"));
  EXPECT_EQ(fields[1], "clocks_event_reasons.active");
  EXPECT_TRUE(next_query_fields(fields, "clocks_event_reasons.active"));  // neither name: left out
  EXPECT_TRUE(next_query_fields(fields, "fabric.state"));
  EXPECT_EQ(fields, (std::vector<std::string>{"index", "name"}));
  EXPECT_FALSE(next_query_fields(fields, "fabric.state"));  // asked again would not help
}

TEST(GpuSmi, ANameWithCommasStaysWhole) {
  auto gpus = parse_health_query("0, 00000000:18:00.0, GPU-1, Enabled, Some GPU, rev 2\n",
                                 {"index", "pci.bus_id", "uuid", "persistence_mode", "name"});
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].name, "Some GPU, rev 2");
  EXPECT_EQ(gpus[0].persistence, "Enabled");
}

TEST(GpuSmi, BusyComputeApps) {
  auto facts = gpu_facts_from_fixture("busy");
  ASSERT_EQ(facts.processes.size(), 3u);
  EXPECT_EQ(facts.processes[0].gpu_uuid, "GPU-2b1c7a6e-5f4d-4c3b-9a81-0d6e5f4c3b2a");
  EXPECT_EQ(facts.processes[0].pid, 4242);
  EXPECT_EQ(facts.processes[0].used_mib, 30720);
  EXPECT_EQ(facts.processes[0].name, "/usr/bin/python3");
  EXPECT_TRUE(parse_compute_apps("No running processes found\n").empty());
}

TEST(GpuSmi, RemappedRowsAndNvlinkErrors) {
  auto ecc = gpu_facts_from_fixture("ecc");
  EXPECT_EQ(ecc.gpus[3].remap_pending, "Yes");
  EXPECT_EQ(ecc.gpus[3].remapped_uncorrectable, 1);
  EXPECT_EQ(ecc.gpus[4].remap_failure, "Yes");
  auto nvlink = gpu_facts_from_fixture("nvlink-down");
  EXPECT_FALSE(nvlink.gpus[3].nvlinks[4].active);
  EXPECT_FALSE(nvlink.gpus[3].nvlinks[5].active);
  EXPECT_TRUE(nvlink.gpus[3].nvlinks[6].active);
  EXPECT_EQ(nvlink.gpus[6].nvlinks[2].recovery, 3);
  EXPECT_EQ(nvlink.gpus[6].nvlinks[2].replay, 210);
  EXPECT_EQ(nvlink.gpus[6].nvlinks[2].crc, 1523);
}

TEST(GpuSmi, OlderErrorCounterNamesAddUp) {
  std::vector<GpuHealth> gpus(1);
  gpus[0].index = 0;
  merge_nvlink_errors("GPU 0: Tesla V100 (UUID: GPU-1)\n\t Link 1: CRC Flit Error: 4\n\t Link 1: CRC Data Error: 6\n"
                      "\t Link 1: Replay Error: 2\n\t Link 1: Recovery Error: 1\n",
                      gpus);
  ASSERT_EQ(gpus[0].nvlinks.size(), 1u);
  EXPECT_EQ(gpus[0].nvlinks[0].crc, 10);
  EXPECT_EQ(gpus[0].nvlinks[0].replay, 2);
  EXPECT_EQ(gpus[0].nvlinks[0].recovery, 1);
}

TEST(GpuSmi, XidsFromTheKernelLogWithTheirTime) {
  auto facts = gpu_facts_from_fixture("xid-all");
  ASSERT_EQ(facts.xids.size(), 19u);
  EXPECT_EQ(facts.xids[0].event.xid, 13);
  EXPECT_EQ(facts.xids[0].event.monotonic_ms, 3'600'000);
  EXPECT_EQ(facts.xids.back().event.xid, 154);
}

TEST(GpuSmi, FactsSurviveJson) {
  auto facts = gpu_facts_from_fixture("xid-all");
  facts.ib_ports.push_back({"mlx5_0", 1, "ACTIVE", "LinkUp", "400 Gb/sec (4X NDR)", 400, "InfiniBand"});
  EXPECT_EQ(nlohmann::json(facts).get<GpuNodeFacts>(), facts);
  EXPECT_EQ(nlohmann::json::parse("{}").get<GpuNodeFacts>(), GpuNodeFacts{});
}

TEST(GpuSysfs, InfinibandPortsAndModules) {
  auto ports = read_ib_ports(test::fixture_path("ib-degraded"));
  ASSERT_EQ(ports.size(), 5u);
  EXPECT_EQ(ports[1].device, "mlx5_1");
  EXPECT_EQ(ports[1].port, 1);
  EXPECT_EQ(ports[1].state, "INIT");
  EXPECT_EQ(ports[1].phys_state, "LinkUp");
  EXPECT_DOUBLE_EQ(ports[2].rate_gbps, 200);
  EXPECT_EQ(ports[2].rate, "200 Gb/sec (4X HDR)");
  EXPECT_EQ(ports[4].link_layer, "Ethernet");
  EXPECT_EQ(loaded_peermem_module(test::fixture_path("ib-healthy")), "nvidia_peermem");
  EXPECT_EQ(loaded_peermem_module(test::fixture_path("ib-degraded")), "");
  EXPECT_EQ(count_nvswitches(test::fixture_path("ib-healthy")), 2);
  EXPECT_TRUE(process_named(test::fixture_path("ib-healthy"), "nv-fabricmanager"));
  EXPECT_FALSE(process_named(test::fixture_path("ib-degraded"), "nv-fabricmanager"));
  EXPECT_TRUE(read_ib_ports("/nonexistent").empty());
  EXPECT_DOUBLE_EQ(parse_ib_rate("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_DOUBLE_EQ(parse_ib_rate("garbage"), -1);
  EXPECT_EQ(sysfs_state_name("4: ACTIVE"), "ACTIVE");
}

}  // namespace
}  // namespace muster::doctor
