#include "doctor/node/node_facts.h"

#include <gtest/gtest.h>

#include "doctor/node/python_probe.h"

namespace muster::doctor {
namespace {

NodeFacts sample_facts() {
  NodeFacts facts;
  facts.hostname = "node1";
  facts.os_id = "debian";
  facts.os_version = "12";
  facts.os_pretty = "Debian GNU/Linux 12 (bookworm)";
  facts.kernel = "6.1.0-18-amd64";
  facts.cpus = 96;
  facts.memory_bytes = int64_t{2} << 40;
  facts.gpus = {{0, "NVIDIA H100 80GB HBM3", 81559, "GPU-a", "550.54.15"},
                {1, "NVIDIA H100 80GB HBM3", 81559, "GPU-b", "550.54.15"}};
  facts.cuda_driver_version = "12.4";
  facts.has_nvidia_smi = true;
  facts.nvcc_version = "12.4";
  facts.python = {"/usr/bin/python3", "3.11.2", {{"torch", "2.3.0"}, {"numpy", "1.26.4"}}, "12.1", "2.20.5", 8, ""};
  facts.interfaces = {{"lo", "127.0.0.1", 4, true, true, -1}, {"ib0", "fe80::1", 6, true, false, 200000}};
  facts.infiniband = {"mlx5_0", "mlx5_1"};
  facts.shm_bytes = int64_t{64} << 30;
  facts.memlock_bytes = -1;
  facts.clock_unix_ms = 1710000000123;
  facts.resolves = {{"node2", {"10.0.0.2", "fd00::2"}}};
  facts.paths = {{"/data", true, "nfs", 12345, 2, "0123456789abcdef", {{"a.py", "1111"}, {"b/c.py", "2222"}}}};
  return facts;
}

TEST(NodeFacts, JsonRoundTrip) {
  NodeFacts facts = sample_facts();
  nlohmann::json json = facts;
  auto back = nlohmann::json::parse(json.dump()).get<NodeFacts>();
  EXPECT_EQ(nlohmann::json(back), json);
  EXPECT_EQ(back.gpus.at(1).uuid, "GPU-b");
  EXPECT_EQ(back.python.packages.at("torch"), "2.3.0");
  EXPECT_EQ(back.interfaces.at(1).speed_mbps, 200000);
  EXPECT_EQ(back.resolves.at("node2").at(1), "fd00::2");
  EXPECT_EQ(back.paths.at(0).file_hashes.at("b/c.py"), "2222");
  EXPECT_EQ(back.memlock_bytes, -1);
}

TEST(NodeFacts, MissingKeysKeepDefaults) {
  auto facts = nlohmann::json::parse(R"({"hostname": "n", "python": {"version": "3.9.0"}, "gpus": [{"name": "X"}],
                                         "future_field": 1, "shm_bytes": null})")
                   .get<NodeFacts>();
  EXPECT_EQ(facts.hostname, "n");
  EXPECT_EQ(facts.python.version, "3.9.0");
  EXPECT_EQ(facts.python.torch_cuda_devices, -1);
  ASSERT_EQ(facts.gpus.size(), 1u);
  EXPECT_EQ(facts.gpus[0].index, 0);
  EXPECT_EQ(facts.shm_bytes, -1);
  EXPECT_EQ(facts.memlock_bytes, -2);
  EXPECT_FALSE(facts.has_nvidia_smi);
  EXPECT_EQ(nlohmann::json::object().get<NodeFacts>().cpus, 0);
}

TEST(PythonProbe, ParsesLastJsonLine) {
  PythonFacts python;
  python.path = "/opt/venv/bin/python";
  parse_python_probe("some warning from sitecustomize\n"
                     R"({"version": "3.11.2", "packages": {"torch": "2.3.0", "deepspeed": "0.14.2"},)"
                     R"( "torch_cuda": "12.1", "torch_nccl": "2.20.5", "torch_cuda_devices": 8})"
                     "\n",
                     python);
  EXPECT_EQ(python.path, "/opt/venv/bin/python");
  EXPECT_EQ(python.version, "3.11.2");
  EXPECT_EQ(python.packages.at("deepspeed"), "0.14.2");
  EXPECT_EQ(python.torch_cuda, "12.1");
  EXPECT_EQ(python.torch_nccl, "2.20.5");
  EXPECT_EQ(python.torch_cuda_devices, 8);
  EXPECT_EQ(python.error, "");

  PythonFacts broken;
  parse_python_probe("Traceback (most recent call last):\n", broken);
  EXPECT_FALSE(broken.error.empty());
}

}  // namespace
}  // namespace muster::doctor
