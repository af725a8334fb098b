// doctor --gpu's findings, one test per kind of fault, from the fixtures (tests/gpu/fixtures: written from NVIDIA's
// documented formats, none recorded; see its README): each asserts the node and GPU named, the cause and the fix.
#include <gtest/gtest.h>

#include "doctor/gpu/gpu_checks.h"
#include "doctor/gpu/node_sysfs.h"
#include "gpu_fixture_support.h"

namespace muster::doctor {
namespace {

using test::gpu_facts_from_fixture;

std::vector<Finding> check_one(const GpuNodeFacts& facts, const std::vector<NodeFacts>& node = {}) {
  return check_gpu_health({"node1"}, {facts}, node);
}

std::vector<Finding> of(const std::vector<Finding>& findings, const std::string& check,
                        Severity severity) {
  std::vector<Finding> out;
  for (const auto& finding : findings) {
    if (finding.check == check && finding.severity == severity) out.push_back(finding);
  }
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The one finding of `check` at `severity` whose message names `gpu`.
Finding about(const std::vector<Finding>& findings, const std::string& check, Severity severity,
              const std::string& gpu) {
  for (const auto& finding : of(findings, check, severity)) {
    if (has(finding.message, gpu)) return finding;
  }
  ADD_FAILURE() << "no " << check << " finding about " << gpu;
  return {};
}

size_t not_ok(const std::vector<Finding>& findings) {
  return std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return f.severity != Severity::ok; });
}

TEST(GpuChecks, HealthyNodeHasOnlyOkFindings) {
  auto findings = check_one(gpu_facts_from_fixture("h100-healthy"));
  EXPECT_EQ(not_ok(findings), 0u);
  for (const char* check : {"gpu", "gpu-xid", "gpu-ecc", "gpu-pcie", "gpu-nvlink", "gpu-clocks", "gpu-persistence",
                            "gpu-mig", "gpu-busy", "gpu-fabric-manager"}) {
    EXPECT_EQ(of(findings, check, Severity::ok).size(), 1u) << check;
  }
  EXPECT_TRUE(has(of(findings, "gpu-nvlink", Severity::ok)[0].message, "all 144 NVLinks up, at 26.562 GB/s"));
}

TEST(GpuChecks, NoGpusSaysSoPlainly) {
  auto findings = check_gpu_health({"node1", "node2"}, {GpuNodeFacts{}, GpuNodeFacts{}});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::ok);
  EXPECT_EQ(findings[0].check, "gpu");
  EXPECT_TRUE(has(findings[0].message, "no NVIDIA GPU on any node"));
}

TEST(GpuChecks, GpusOnSomeNodesOnly) {
  auto findings = check_gpu_health({"node1", "node2"}, {gpu_facts_from_fixture("h100-healthy"), GpuNodeFacts{}});
  auto warning = of(findings, "gpu", Severity::warning);
  ASSERT_EQ(warning.size(), 1u);
  EXPECT_TRUE(has(warning[0].message, "node1 have NVIDIA GPUs but node2 have none"));
  EXPECT_TRUE(has(warning[0].fix, "leave the others out"));
}

TEST(GpuChecks, NvidiaSmiMissingOrFailingAndAnUnreadableKernelLog) {
  GpuNodeFacts missing;
  missing.gpu_devices = true;
  auto findings = check_one(missing);
  EXPECT_TRUE(has(about(findings, "gpu", Severity::error, "no nvidia-smi").fix, "nvidia-utils"));
  GpuNodeFacts failing = gpu_facts_from_fixture("h100-healthy");
  failing.smi_error = "Failed to initialize NVML: Driver/library version mismatch (exit 18)";
  failing.kernel_log_error = "cannot read the kernel log (/dev/kmsg): Operation not permitted";
  findings = check_one(failing);
  EXPECT_TRUE(has(about(findings, "gpu", Severity::error, "Driver/library version mismatch").fix, "reboot"));
  Finding log = about(findings, "gpu", Severity::warning, "XIDs were not checked");
  EXPECT_TRUE(has(log.fix, "kernel.dmesg_restrict=0"));
  EXPECT_TRUE(of(findings, "gpu-xid", Severity::ok).empty());  // not "no XID": it could not look
}

TEST(GpuChecks, EveryXidClassWithCauseAndFix) {
  auto findings = check_one(gpu_facts_from_fixture("xid-all"));
  // The program's: warnings that say so.
  Finding x13 = about(findings, "gpu-xid", Severity::warning, "XID 13 ");
  EXPECT_TRUE(has(x13.message, "GPU 0 (0000:18:00) logged XID 13 (graphics engine exception) 2 times since boot, "
                               "the last 23 min 20 s ago (pid 41233 python3)"));
  EXPECT_TRUE(has(x13.message, "usually the program, not the node"));
  EXPECT_TRUE(has(x13.message, "Out Of Range Address"));
  EXPECT_TRUE(has(x13.fix, "compute-sanitizer"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::warning, "XID 31 ").fix, "CUDA_LAUNCH_BLOCKING=1"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::warning, "XID 43 ").message, "other processes go on"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::warning, "XID 45 ").message, "harmless alone"));
  // The node's: errors, the fix naming the GPU's index where the catalogue says <GPU>.
  Finding x48 = about(findings, "gpu-xid", Severity::error, "XID 48 ");
  EXPECT_TRUE(has(x48.message, "GPU 2 (0000:3a:00)"));
  EXPECT_TRUE(has(x48.message, "ECC could not correct"));
  EXPECT_TRUE(has(x48.message, "the GPU or node is at fault"));
  EXPECT_TRUE(has(x48.fix, "nvidia-smi -r -i 2"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 63 ").fix, "so the remapping takes effect"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 64 ").fix, "RMA"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 92 ").message, "degrading"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 94 ").message, "contained"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 95 ").fix, "nvidia-smi -r -i 4"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 74 ").fix, "nvidia-smi nvlink -s"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 61 ").message, "micro-controller"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 62 ").fix, "reboot"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 119 ").message, "GPU System Processor"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 120 ").fix, "update the driver"));
  Finding x79 = about(findings, "gpu-xid", Severity::error, "XID 79 ");
  EXPECT_TRUE(has(x79.message, "GPU 7 (0000:db:00) logged XID 79 (GPU has fallen off the bus) 2 times"));
  EXPECT_TRUE(has(x79.fix, "reboot the node"));
  EXPECT_TRUE(has(about(findings, "gpu-xid", Severity::error, "XID 154 ").message, "Node Reboot Required"));
  EXPECT_EQ(of(findings, "gpu-xid", Severity::error).size(), 13u);
  EXPECT_EQ(of(findings, "gpu-xid", Severity::warning).size(), 4u);
}

TEST(GpuChecks, UncorrectableEccRemapsAndRetiredPages) {
  auto findings = check_one(gpu_facts_from_fixture("ecc"));
  Finding volatile_ecc = about(findings, "gpu-ecc", Severity::error, "GPU 1 ");
  EXPECT_TRUE(has(volatile_ecc.message, "2 uncorrectable ECC error(s) since the driver loaded (5 over its life)"));
  EXPECT_TRUE(has(volatile_ecc.fix, "sudo nvidia-smi -r -i 1"));
  Finding aggregate = about(findings, "gpu-ecc", Severity::warning, "GPU 2 ");
  EXPECT_TRUE(has(aggregate.message, "3 uncorrectable ECC error(s) over its life (none since the driver loaded)"));
  EXPECT_TRUE(has(aggregate.fix, "nvidia-smi -q -i 2 -d ECC,ROW_REMAPPER"));
  Finding pending = about(findings, "gpu-ecc", Severity::warning, "GPU 3 ");
  EXPECT_TRUE(has(pending.message, "waits for a GPU reset to be remapped"));
  EXPECT_TRUE(has(pending.fix, "sudo nvidia-smi -r -i 3"));
  Finding failed = about(findings, "gpu-ecc", Severity::error, "GPU 4 ");
  EXPECT_TRUE(has(failed.message, "remapping failed (no spare rows left)"));
  EXPECT_TRUE(has(failed.fix, "RMA"));
  auto retired = check_one(gpu_facts_from_fixture("v100-old-driver"));
  EXPECT_TRUE(has(about(retired, "gpu-ecc", Severity::warning, "waits for a GPU reset to be retired").message,
                  "GPU 1 (0000:16:00)"));
  EXPECT_TRUE(has(about(retired, "gpu-ecc", Severity::warning, "2 memory page(s) retired").fix, "PAGE_RETIREMENT"));
}

TEST(GpuChecks, PcieDowngrade) {
  auto findings = check_one(gpu_facts_from_fixture("pcie-downgrade"));
  Finding width = about(findings, "gpu-pcie", Severity::warning, "GPU 2 ");
  EXPECT_TRUE(has(width.message, "PCIe link x8 of x16"));
  EXPECT_TRUE(has(width.fix, "reseat the GPU"));
  EXPECT_TRUE(has(width.fix, "lspci -vv -s 0000:3a:00"));
  Finding gen = about(findings, "gpu-pcie", Severity::warning, "GPU 5 ");
  EXPECT_TRUE(has(gen.message, "PCIe gen 3 of gen 5 while busy (P0)"));
  EXPECT_TRUE(has(gen.fix, "BIOS"));
  // GPU 6 is idle (P8) at gen 1: not a fault.
  EXPECT_EQ(of(findings, "gpu-pcie", Severity::warning).size(), 2u);
}

TEST(GpuChecks, IdleGenerationIsNotAFault) {
  auto facts = gpu_facts_from_fixture("pcie-downgrade");
  facts.gpus = {facts.gpus[6]};
  auto findings = check_one(facts);
  auto ok = of(findings, "gpu-pcie", Severity::ok);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_TRUE(has(ok[0].message, "1 idle GPU(s) at a lower generation"));
}

TEST(GpuChecks, NvlinkDownAndErroring) {
  auto findings = check_one(gpu_facts_from_fixture("nvlink-down"));
  Finding down = about(findings, "gpu-nvlink", Severity::error, "GPU 3 ");
  EXPECT_TRUE(has(down.message, "NVLink 4, 5 down (16 of 18 links active)"));
  EXPECT_TRUE(has(down.fix, "nvidia-fabricmanager"));
  Finding errors = about(findings, "gpu-nvlink", Severity::warning, "GPU 6 ");
  EXPECT_TRUE(has(errors.message, "link 2: 3 recoveries, 210 replays, 1523 CRC errors"));
  EXPECT_TRUE(has(errors.fix, "nvidia-smi nvlink -e"));
}

TEST(GpuChecks, ClockThrottleReasons) {
  auto findings = check_one(gpu_facts_from_fixture("throttle"));
  Finding slowdown = about(findings, "gpu-clocks", Severity::warning, "GPU 0 ");
  EXPECT_TRUE(has(slowdown.message, "hardware slowdown"));
  EXPECT_TRUE(has(slowdown.fix, "power supplies and cooling"));
  Finding thermal = about(findings, "gpu-clocks", Severity::warning, "GPU 3 ");
  EXPECT_TRUE(has(thermal.message, "hardware thermal slowdown (the GPU is too hot) and software thermal slowdown"));
  EXPECT_TRUE(has(thermal.message, "92 °C"));
  EXPECT_TRUE(has(thermal.fix, "airflow"));
  Finding brake = about(findings, "gpu-clocks", Severity::warning, "GPU 5 ");
  EXPECT_TRUE(has(brake.message, "power brake"));
  EXPECT_TRUE(has(brake.fix, "ipmitool sel list"));
  EXPECT_EQ(of(findings, "gpu-clocks", Severity::warning).size(), 3u);  // GPU 7's power cap is normal
}

TEST(GpuChecks, BusyGpusNameWhoseAndHowMuch) {
  auto facts = gpu_facts_from_fixture("busy");
  facts.processes[0].user = "alice";
  facts.processes[1].user = "alice";
  auto findings = check_one(facts);
  Finding busy = about(findings, "gpu-busy", Severity::warning, "GPU 0 ");
  EXPECT_TRUE(has(busy.message, "pid 4242 /usr/bin/python3 (alice) 30720 MiB, pid 4243 python3 (alice) 30722 MiB"));
  EXPECT_TRUE(has(busy.fix, "kill 4242 4243"));
  Finding other = about(findings, "gpu-busy", Severity::warning, "GPU 3 ");
  EXPECT_TRUE(has(other.message, "user unknown: another PID namespace"));
}

TEST(GpuChecks, PersistenceAndMig) {
  auto findings = check_one(gpu_facts_from_fixture("mig-persistence"));
  Finding persistence = of(findings, "gpu-persistence", Severity::warning).at(0);
  EXPECT_TRUE(has(persistence.message, "persistence mode is off on GPU 0, 1, 2, 3"));
  EXPECT_TRUE(has(persistence.fix, "nvidia-persistenced"));
  Finding mig = about(findings, "gpu-mig", Severity::warning, "GPU 0 ");
  EXPECT_TRUE(has(mig.message, "MIG is on"));
  EXPECT_TRUE(has(mig.fix, "sudo nvidia-smi -i 0 -mig 0"));
  Finding pending = about(findings, "gpu-mig", Severity::warning, "GPU 1 ");
  EXPECT_TRUE(has(pending.message, "changes to Enabled at the next GPU reset"));
}

TEST(GpuChecks, FabricManagerAndFabricState) {
  auto facts = gpu_facts_from_fixture("nvswitch-not-ready");
  facts.nvswitches = count_nvswitches(test::fixture_path("ib-degraded"));
  facts.fabric_manager = process_named(test::fixture_path("ib-degraded"), "nv-fabricmanager");
  auto findings = check_one(facts);
  Finding manager = about(findings, "gpu-fabric-manager", Severity::error, "no fabric manager runs");
  EXPECT_TRUE(has(manager.message, "1 NVSwitch(es)"));
  EXPECT_TRUE(has(manager.fix, "systemctl enable --now nvidia-fabricmanager"));
  Finding state = about(findings, "gpu-fabric-manager", Severity::error, "not ready");
  EXPECT_TRUE(has(state.message, "GPU 0 (0000:18:00): In Progress"));
  auto healthy = gpu_facts_from_fixture("h100-healthy");
  healthy.nvswitches = 2;
  healthy.fabric_manager = true;
  EXPECT_TRUE(has(of(check_one(healthy), "gpu-fabric-manager", Severity::ok).at(0).message, "fabric manager running"));
}

TEST(GpuChecks, GpuDirectRdmaAndInfinibandPorts) {
  auto facts = gpu_facts_from_fixture("h100-healthy");
  facts.ib_ports = read_ib_ports(test::fixture_path("ib-degraded"));
  facts.peermem_module = loaded_peermem_module(test::fixture_path("ib-degraded"));
  auto findings = check_one(facts);
  EXPECT_TRUE(has(of(findings, "gpu-rdma", Severity::warning).at(0).fix, "modprobe nvidia_peermem"));
  Finding init = about(findings, "infiniband-ports", Severity::error, "mlx5_1 port 1");
  EXPECT_TRUE(has(init.message, "INIT (the link is up but no subnet manager has configured the port)"));
  EXPECT_TRUE(has(init.fix, "opensm"));
  Finding polling = about(findings, "infiniband-ports", Severity::error, "mlx5_3 port 1");
  EXPECT_TRUE(has(polling.message, "no link (Polling)"));
  EXPECT_TRUE(has(polling.fix, "cable"));
  Finding rate = about(findings, "infiniband-ports", Severity::warning, "mlx5_2 port 1");
  EXPECT_TRUE(has(rate.message, "runs at 200 Gb/sec (4X HDR) where others run at 400 Gb/sec (4X NDR)"));
  EXPECT_TRUE(has(rate.fix, "ibstat mlx5_2"));
  Finding layers = about(findings, "infiniband-ports", Severity::warning, "mix link layers");
  EXPECT_TRUE(has(layers.message, "Ethernet on node1; InfiniBand on node1"));

  facts.ib_ports = read_ib_ports(test::fixture_path("ib-healthy"));
  facts.peermem_module = loaded_peermem_module(test::fixture_path("ib-healthy"));
  findings = check_one(facts);
  EXPECT_TRUE(has(of(findings, "infiniband-ports", Severity::ok).at(0).message,
                  "all 4 InfiniBand/RoCE ports ACTIVE, at 400 Gb/sec (4X NDR) (InfiniBand)"));
  EXPECT_EQ(of(findings, "gpu-rdma", Severity::ok).size(), 1u);
}

TEST(GpuChecks, DriverCudaAgainstTorch) {
  NodeFacts node;
  node.cuda_driver_version = "12.2";
  node.python.torch_cuda = "12.4";
  auto facts = gpu_facts_from_fixture("h100-healthy");
  auto findings = check_one(facts, {node});
  Finding minor = of(findings, "gpu-driver", Severity::warning).at(0);
  EXPECT_TRUE(has(minor.message, "built for CUDA 12.4, the driver supports CUDA 12.2"));
  EXPECT_TRUE(has(minor.fix, "upgrade the NVIDIA driver"));
  node.cuda_driver_version = "11.4";
  Finding major = of(check_one(facts, {node}), "gpu-driver", Severity::error).at(0);
  EXPECT_TRUE(has(major.message, "CUDA cannot start"));
  node.cuda_driver_version = "12.4";
  EXPECT_EQ(of(check_one(facts, {node}), "gpu-driver", Severity::ok).size(), 1u);
}

TEST(GpuChecks, Durations) {
  EXPECT_EQ(format_duration_ms(42'000), "42 s");
  EXPECT_EQ(format_duration_ms(303'000), "5 min 3 s");
  EXPECT_EQ(format_duration_ms(11'520'000), "3 h 12 min");
  EXPECT_EQ(format_duration_ms(90'000'000), "1 d 1 h");
}

}  // namespace
}  // namespace muster::doctor
