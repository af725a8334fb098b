#include "doctor/checks/checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace muster::doctor {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kNames = {"node1", "node2", "node3"};

NodeFacts healthy_node(int k) {
  NodeFacts node;
  node.hostname = kNames[static_cast<std::size_t>(k - 1)];
  node.os_id = "debian";
  node.os_version = "12";
  node.os_pretty = "Debian GNU/Linux 12 (bookworm)";
  node.kernel = "6.1.0-18-amd64";
  node.cpus = 32;
  for (int g = 0; g < 2; ++g)
    node.gpus.push_back({g, "NVIDIA H100 80GB HBM3", 81559, "GPU-" + std::to_string(g), "550.54.15"});
  node.has_nvidia_smi = true;
  node.cuda_driver_version = "12.4";
  node.nvcc_version = "12.1";
  node.python.path = "/usr/bin/python3";
  node.python.version = "3.11.2";
  node.python.packages = {{"torch", "2.3.0"}, {"deepspeed", "0.14.2"}, {"numpy", "1.26.4"}};
  node.python.torch_cuda = "12.1";
  node.python.torch_nccl = "2.20.5";
  node.python.torch_cuda_devices = 2;
  std::string address = "10.0.0." + std::to_string(k);
  node.interfaces = {{"lo", "127.0.0.1", 4, true, true, -1},
                     {"eth0", address, 4, true, false, 25000},
                     {"docker0", "172.17.0.1", 4, true, false, -1}};
  node.infiniband = {"mlx5_0", "mlx5_1"};
  node.shm_bytes = int64_t{32} << 30;
  node.memlock_bytes = -1;
  node.clock_unix_ms = 1'700'000'000'000 + k * 10;
  for (int other = 1; other <= 3; ++other) {
    node.resolves[kNames[static_cast<std::size_t>(other - 1)]] = {"10.0.0." + std::to_string(other)};
  }
  PathFacts code{
      "/work/code", true, "ext4", int64_t{100} << 30, 2, "h-all", {{"train.py", "a1"}, {"model.py", "b1"}}};
  node.paths = {code};
  return node;
}

std::vector<NodeFacts> healthy_cluster() {
  return {healthy_node(1), healthy_node(2), healthy_node(3)};
}

CheckOptions options() {
  CheckOptions result;
  result.slots_per_node = 2;
  result.code_paths = {"/work/code"};
  return result;
}

std::vector<Finding> with(const std::vector<Finding>& findings, Severity severity) {
  std::vector<Finding> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out),
               [&](const Finding& f) { return f.severity == severity; });
  return out;
}

Finding only_problem(const std::vector<Finding>& findings, Severity severity) {
  const Finding none;
  auto problems = with(findings, Severity::error);
  auto warnings = with(findings, Severity::warning);
  problems.insert(problems.end(), warnings.begin(), warnings.end());
  EXPECT_EQ(problems.size(), 1u);
  if (problems.size() != 1) return none;
  auto it = std::find_if(findings.begin(), findings.end(),
                         [](const Finding& f) { return f.severity != Severity::ok; });
  EXPECT_EQ(it->severity, severity);
  return *it;
}

const Finding* find_check(const std::vector<Finding>& findings, const std::string& check) {
  auto it =
      std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.check == check; });
  return it == findings.end() ? nullptr : &*it;
}

TEST(Checks, HealthyClusterPassesEveryCheck) {
  auto findings = run_checks(kNames, healthy_cluster(), options());
  EXPECT_EQ(with(findings, Severity::error).size(), 0u);
  EXPECT_EQ(with(findings, Severity::warning).size(), 0u);
  std::vector<std::string> checks;
  for (const auto& f : findings) checks.push_back(f.check);
  EXPECT_EQ(checks, (std::vector<std::string>{"hostnames", "resolution", "loopback", "versions", "paths",
                                              "network", "infiniband", "shm", "memlock", "gpus", "clock"}));
  EXPECT_EQ(find_check(findings, "network")->fix, "export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0");
  EXPECT_EQ(find_check(findings, "infiniband")->fix, "export NCCL_IB_HCA=mlx5_0,mlx5_1");
  EXPECT_EQ(find_check(findings, "paths")->message, "/work/code: identical on every node, node-local (ext4)");
  EXPECT_EQ(
      find_check(findings, "versions")->message,
      "identical on every node: python 3.11.2, torch 2.3.0, torch_cuda 12.1, torch_nccl 2.20.5, deepspeed "
      "0.14.2, numpy 1.26.4, os Debian GNU/Linux 12 (bookworm), kernel 6.1.0-18-amd64, driver 550.54.15, "
      "cuda_driver 12.4, nvcc 12.1");
  EXPECT_EQ(find_check(findings, "clock")->message, "clocks agree within 20 ms");
  EXPECT_EQ(find_check(findings, "gpus")->message, "2 GPU(s) on every node, visible to torch");
}

TEST(Checks, DuplicateHostnameNamesBothNodes) {
  auto facts = healthy_cluster();
  facts[2].hostname = "NODE2";  // hostnames compare case-insensitively
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::error);
  EXPECT_EQ(f.check, "hostnames");
  EXPECT_EQ(f.message,
            "node[2-3] all have the hostname \"node2\"; torch.distributed, NCCL and the launcher "
            "tell nodes apart by hostname");
  EXPECT_EQ(f.fix, "on node3: sudo hostnamectl set-hostname <unique name>");
}

TEST(Checks, DebianLoopbackSelfMappingSaysWhichInterfaceToUse) {
  auto facts = healthy_cluster();
  facts[1].resolves["node2"] = {"127.0.1.1"};
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::error);
  EXPECT_EQ(f.check, "loopback");
  EXPECT_EQ(f.node, "node2");
  EXPECT_THAT(f.message, HasSubstr("resolves its own name node2 to 127.0.1.1"));
  EXPECT_EQ(f.fix,
            "remove the `127.0.1.1 node2` line from /etc/hosts on node2 (muster setup hosts --fix-loopback), "
            "or export GLOO_SOCKET_IFNAME=eth0 NCCL_SOCKET_IFNAME=eth0");
}

TEST(Checks, UnresolvedAndInconsistentNames) {
  auto facts = healthy_cluster();
  facts[0].resolves["node3"] = {};
  facts[1].resolves["node1"] = {"fe80::1", "10.0.9.9"};
  auto errors = with(run_checks(kNames, facts, options()), Severity::error);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].check, "resolution");
  EXPECT_EQ(errors[0].node, "node2");
  EXPECT_EQ(errors[0].message,
            "nodes disagree on the address of node1:\n  10.0.0.1         on node[1,3]\n"
            "  10.0.9.9         on node2");
  EXPECT_EQ(errors[1].node, "node1");
  EXPECT_EQ(errors[1].message, "node1 cannot resolve node3 to an IPv4 address");
  EXPECT_THAT(errors[1].fix, HasSubstr("muster setup hosts"));
}

TEST(Checks, OddTorchVersionNamesTheNodeAndTheMajorityVersion) {
  auto facts = healthy_cluster();
  facts[1].python.packages["torch"] = "2.1.0";
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::error);
  EXPECT_EQ(f.check, "versions");
  EXPECT_EQ(f.node, "node2");
  EXPECT_EQ(f.message,
            "torch is not the same on every node (odd: node2):\n"
            "  2.3.0                    node[1,3]\n"
            "  2.1.0                    node2");
  EXPECT_EQ(f.fix, "on node2: pip install torch==2.3.0");
}

TEST(Checks, MissingPackageAndLocalTorchVersionAndKernelWarning) {
  auto facts = healthy_cluster();
  for (auto& node : facts) node.python.packages["torch"] = "2.3.0+cu121";
  facts[0].python.packages.erase("deepspeed");
  facts[2].kernel = "6.1.0-21-amd64";
  facts[2].python.packages["torch"] = "2.2.0";
  auto findings = run_checks(kNames, facts, options());
  auto errors = with(findings, Severity::error);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].fix,
            "on node3: pip install torch==2.3.0+cu121 --index-url https://download.pytorch.org/whl/cu121");
  EXPECT_EQ(errors[1].node, "node1");
  EXPECT_EQ(errors[1].fix, "on node1: pip install deepspeed==0.14.2");
  auto warnings = with(findings, Severity::warning);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].node, "node3");
  EXPECT_THAT(warnings[0].message, HasSubstr("kernel is not the same"));
}

TEST(Checks, MissingCodePathIsNamed) {
  auto facts = healthy_cluster();
  facts[2].paths[0].exists = false;
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::error);
  EXPECT_EQ(f.check, "paths");
  EXPECT_EQ(f.node, "node3");
  EXPECT_EQ(f.message, "/work/code is missing on node3");
  EXPECT_EQ(f.fix, "muster sync /work/code, or mount the shared filesystem that holds it on node3");
}

TEST(Checks, DifferingFileIsNamed) {
  auto facts = healthy_cluster();
  facts[0].paths[0].content_hash = "h-changed";
  facts[0].paths[0].file_hashes["train.py"] = "a2";
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::error);
  EXPECT_EQ(f.check, "paths");
  EXPECT_EQ(f.node, "node1");
  EXPECT_EQ(f.message,
            "/work/code is not the same on every node:\n  same as each other: node[2-3]\n"
            "  differs on node1: train.py");
  EXPECT_EQ(f.fix, "muster sync /work/code (from the head), or put it on a shared filesystem");
}

TEST(Checks, SharedFilesystemIsRecognised) {
  auto facts = healthy_cluster();
  for (auto& node : facts) node.paths[0].fs_type = "nfs4";
  auto findings = run_checks(kNames, facts, options());
  EXPECT_EQ(find_check(findings, "paths")->message,
            "/work/code: identical on every node, shared filesystem (nfs4)");
}

TEST(Checks, NoCommonInterface) {
  auto facts = healthy_cluster();
  facts[2].interfaces[1].name = "ens5";  // same subnet, another name: no single NCCL_SOCKET_IFNAME
  auto findings = run_checks(kNames, facts, options());
  Finding f = only_problem(findings, Severity::error);
  EXPECT_EQ(f.check, "network");
  EXPECT_THAT(f.message, HasSubstr("\n  node3            ens5 10.0.0.3, docker0 172.17.0.1"));
  EXPECT_THAT(f.fix, HasSubstr("NCCL_SOCKET_IFNAME=<iface>"));
}

TEST(Checks, DifferentSubnetIsNotCommon) {
  auto facts = healthy_cluster();
  facts[1].interfaces[1].address = "10.0.1.2";
  EXPECT_EQ(only_problem(run_checks(kNames, facts, options()), Severity::error).check, "network");
}

TEST(Checks, NoInfinibandMeansTcpSockets) {
  auto facts = healthy_cluster();
  for (auto& node : facts) node.infiniband.clear();
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::warning);
  EXPECT_EQ(f.message, "no InfiniBand/RoCE device on any node: NCCL will use TCP sockets");
  for (auto& node : facts) {
    node.gpus.clear();
    node.python.torch_cuda_devices = 0;
  }
  auto findings = run_checks(kNames, facts, options());
  EXPECT_EQ(with(findings, Severity::warning).size(), 0u);
  EXPECT_EQ(find_check(findings, "infiniband")->message,
            "no GPUs: torch.distributed will use gloo over TCP (CPU)");
}

TEST(Checks, SmallShm) {
  auto facts = healthy_cluster();
  facts[1].shm_bytes = int64_t{64} << 20;
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::warning);
  EXPECT_EQ(f.check, "shm");
  EXPECT_EQ(f.node, "node2");
  EXPECT_THAT(f.message, HasSubstr("/dev/shm is 64 MiB (< 1 GiB)"));
  EXPECT_THAT(f.fix, HasSubstr("--shm-size=16g"));
}

TEST(Checks, LowMemlock) {
  auto facts = healthy_cluster();
  facts[0].memlock_bytes = 8 << 20;
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::warning);
  EXPECT_EQ(f.check, "memlock");
  EXPECT_EQ(f.node, "node1");
  EXPECT_THAT(f.fix, HasSubstr("ulimit -l unlimited"));
  EXPECT_THAT(f.fix, HasSubstr("--ulimit memlock=-1"));
}

TEST(Checks, FewerGpusThanSlotsAndCpuTorch) {
  auto facts = healthy_cluster();
  facts[0].gpus.pop_back();
  facts[1].python.torch_cuda = "";
  facts[1].python.torch_cuda_devices = 0;
  auto errors = with(run_checks(kNames, facts, options()), Severity::error);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& f : errors) got.emplace_back(f.check, f.node);
  // The CPU build also shows as a torch_cuda version difference.
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"versions", "node2"}, {"gpus", "node1"}, {"gpus", "node2"}}));
  EXPECT_EQ(errors[1].message, "node1 has 1 GPU(s) for 2 slots");
  EXPECT_THAT(errors[2].message, HasSubstr("torch is a CPU build"));
}

TEST(Checks, ClockSkewNamesTheNodeFurthestOff) {
  auto facts = healthy_cluster();
  facts[2].clock_unix_ms += 5000;
  Finding f = only_problem(run_checks(kNames, facts, options()), Severity::warning);
  EXPECT_EQ(f.check, "clock");
  EXPECT_EQ(f.node, "node3");
  EXPECT_THAT(f.message,
              HasSubstr("clocks differ by 5020 ms (limit 1000 ms); node3 is 5010 ms ahead of the others"));
  EXPECT_THAT(f.fix, HasSubstr("chrony"));
}

TEST(Checks, HeadMeasuredOffsetsExplainALateClock) {
  auto facts = healthy_cluster();
  facts[2].clock_unix_ms += 5000;
  auto opts = options();
  opts.clock_offsets_ms = {0, 0, 5000};  // node3 was asked 5 s later
  auto findings = run_checks(kNames, facts, opts);
  EXPECT_EQ(with(findings, Severity::warning).size(), 0u);
}

TEST(Checks, SingleLocalNodeNeedsNoInterNodeNames) {
  NodeFacts node = healthy_node(1);
  node.resolves = {{"localhost", {"127.0.0.1"}}};
  auto findings = run_checks({"localhost"}, {node}, options());
  EXPECT_EQ(with(findings, Severity::error).size(), 0u);
  EXPECT_EQ(with(findings, Severity::warning).size(), 0u);
}

}  // namespace
}  // namespace muster::doctor
