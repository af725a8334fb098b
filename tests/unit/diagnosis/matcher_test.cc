// The matcher on recorded outputs: each built-in entry recognizes the output it is written for (the GPU ones on
// output as PyTorch and NCCL print it, since this machine has no GPU), the most explaining rank is chosen, the
// same error on several ranks is named once, and the placeholders are filled from the evidence and the facts.
#include "diagnosis/matcher.h"

#include <gtest/gtest.h>

namespace muster::diagnosis {
namespace {

using How = RankFailure::How;

const Catalogue& builtin() {
  static const Catalogue catalogue = load_catalogue({}).value();
  return catalogue;
}

RankFailure failed(int rank, const std::string& node, How how, int code, std::vector<std::string> lines) {
  RankFailure failure;
  failure.rank = rank;
  failure.node = node;
  failure.how = how;
  failure.code = code;
  failure.lines = std::move(lines);
  failure.ended_ms = 1000 + rank;
  return failure;
}

std::string matched_id(const RankFailure& failure, const ClusterFacts& facts = {}) {
  auto d = diagnose(builtin(), {failure}, facts);
  return d.entry ? d.entry->id : "(none)";
}

struct Recorded {
  const char* id;
  How how;
  int code;
  std::vector<std::string> lines;
};

// Lines as the tools print them (PyTorch 1.13-2.5, NCCL 2.14-2.21, gloo, CPython, the kernel).
const std::vector<Recorded> kRecorded = {
    {"cuda-out-of-memory", How::exited, 1,
     {"Traceback (most recent call last):", "  File \"train.py\", line 30, in <module>",
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
      "79.15 GiB of which 1.02 GiB is free."}},
    {"cuda-out-of-memory", How::exited, 1,
     {"RuntimeError: CUDA out of memory. Tried to allocate 74.00 MiB (GPU 0; 11.91 GiB total capacity; 10.79 GiB "
      "already allocated; 12.94 MiB free; 11.21 GiB reserved in total by PyTorch)"}},
    {"dataloader-worker-killed", How::exited, 1,
     {"RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed. "}},
    {"dataloader-worker-killed", How::exited, 1,
     {"RuntimeError: DataLoader worker (pid(s) 4242, 4243) exited unexpectedly"}},
    {"cuda-driver-too-old", How::exited, 1,
     {"RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver"}},
    {"cuda-driver-too-old", How::exited, 1,
     {"RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"}},
    {"cuda-device-assert", How::exited, 1,
     {"../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
      "[0,0,0] Assertion `t >= 0 && t < n_classes` failed.",
      "RuntimeError: CUDA error: device-side assert triggered"}},
    {"cuda-illegal-address", How::exited, 1, {"RuntimeError: CUDA error: an illegal memory access was encountered"}},
    {"cuda-no-kernel-image", How::exited, 1,
     {"RuntimeError: CUDA error: no kernel image is available for execution on the device"}},
    {"cuda-invalid-device", How::exited, 1, {"RuntimeError: CUDA error: invalid device ordinal"}},
    {"cuda-invalid-device", How::exited, 1,
     {"torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, invalid usage (run with "
      "NCCL_DEBUG=WARN for details), NCCL version 2.18.6",
      "Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 4000"}},
    {"segfault", How::signaled, 11, {"Fatal Python error: Segmentation fault", "", "Current thread 0x00007f (most "
                                                                               "recent call first):"}},
    {"abort", How::signaled, 6, {"terminate called after throwing an instance of 'std::runtime_error'"}},
    {"module-not-found", How::exited, 1,
     {"Traceback (most recent call last):", "ModuleNotFoundError: No module named 'flash_attn'"}},
    {"import-name", How::exited, 1,
     {"ImportError: cannot import name 'LlamaConfig' from 'transformers' (/x/transformers/__init__.py)"}},
    {"shared-library-missing", How::exited, 1,
     {"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"}},
    {"script-missing", How::exited, 2,
     {"/usr/bin/python3: can't open file '/home/u/train.py': [Errno 2] No such file or directory"}},
    {"address-in-use", How::exited, 1,
     {"RuntimeError: The server socket has failed to listen on any local network address. The server socket has "
      "failed to bind to 0.0.0.0:29511 (errno: 98 - Address already in use)."}},
    {"address-in-use", How::exited, 1,
     {"torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
      "port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"}},
    {"loopback-address", How::exited, 1,
     {"RuntimeError: [./gloo/transport/tcp/pair.cc:799] connect [127.0.1.1]:19328: Connection refused"}},
    {"gloo-interface-name", How::exited, 1,
     {"RuntimeError: [enforce fail at ./gloo/transport/tcp/device.cc:80] ifa != nullptr. Unable to find address "
      "for: bogus0"}},
    {"nccl-interface", How::exited, 1,
     {"torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, unhandled system error (run "
      "with NCCL_DEBUG=INFO for details), NCCL version 2.18.6",
      "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
      "Last error:", "socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host"}},
    {"nccl-interface", How::exited, 1, {"node1:1234:1234 [0] bootstrap.cc:45 NCCL WARN Bootstrap : no socket "
                                        "interface found"}},
    {"nccl-infiniband", How::signaled, 6,
     {"NCCL error: remote process exited or there was a network error, NCCL version 2.14.3",
      "Last error: NET/IB : Got completion from peer 11.214.147.122<39138> with error 12, opcode 0, len 0, vendor "
      "err 129"}},
    {"nccl-unhandled-cuda-error", How::exited, 1,
     {"torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:275, unhandled cuda error (run with "
      "NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
      "ncclUnhandledCudaError: Call to CUDA function failed."}},
    {"nccl-system-error", How::exited, 1,
     {"RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3"}},
    {"nccl-system-error", How::exited, 1,
     {"torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, internal error - please report "
      "this issue to the NCCL developers, NCCL version 2.18.1"}},
    {"master-unreachable", How::exited, 1,
     {"TimeoutError: The client socket has timed out after 8s while trying to connect to (127.0.0.1, 29512)."}},
    {"hf-datasets-cache-race", How::exited, 1,
     {"FileNotFoundError: [Errno 2] No such file or directory: '/shared/hf/ds/default-abc/0.0.0/hash.incomplete/"
      "dataset_info.json'"}},
    {"hf-datasets-cache-race", How::exited, 1,
     {"OSError: [Errno 39] Directory not empty: '/shared/hf/text/default-d08/0.0.0/c4a1.incomplete'"}},
    {"peer-died", How::exited, 1,
     {"RuntimeError: [./gloo/transport/tcp/pair.cc:589] Read error [10.0.0.2]:3304: Connection reset by peer"}},
    {"peer-died", How::exited, 1, {"RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer "
                                   "[10.0.0.2]:7579"}},
    {"nccl-watchdog-timeout", How::signaled, 6,
     {"[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing "
      "out."}},
    {"gloo-timeout", How::exited, 1,
     {"RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 5000ms for recv operation to "
      "complete"}},
    {"disk-full", How::exited, 1,
     {"Traceback (most recent call last):", "  File \"train.py\", line 88, in save",
      "OSError: [Errno 28] No space left on device: '/data/ckpt/step_1200.pt.tmp'"}},
    {"sigkill", How::signaled, 9, {"step 12 loss 0.4"}},
    {"sigkill", How::exited, 137, {}},
    {"sigterm", How::signaled, 15, {}},
    {"command-not-found", How::failed_to_start, 127, {"execvp(trian.py): No such file or directory"}},
    {"python-exception", How::exited, 1, {"Traceback (most recent call last):", "ValueError: bad batch size 0"}},
};

TEST(Matcher, EachRecordedOutputMatchesItsEntry) {
  for (const auto& recorded : kRecorded) {
    EXPECT_EQ(matched_id(failed(0, "node1", recorded.how, recorded.code, recorded.lines)), recorded.id)
        << recorded.lines.back();
  }
}

TEST(Matcher, EveryBuiltInEntryHasARecordedOutput) {
  for (const auto& entry : builtin().entries) {
    bool covered = std::any_of(kRecorded.begin(), kRecorded.end(), [&](const Recorded& r) { return entry.id == r.id; });
    // These three need evidence beyond output (a kernel note, a lost node, doctor's findings): tested below.
    bool elsewhere = entry.id == "oom-kill" || entry.id == "node-lost" || entry.id == "version-skew";
    EXPECT_TRUE(covered || elsewhere) << entry.id << " has no recorded output in this test";
  }
}

TEST(Matcher, AnOomKillNoteMakesASigkillAnOomKill) {
  auto rank = failed(3, "node2", How::signaled, 9, {"epoch 1 step 40"});
  EXPECT_EQ(matched_id(rank), "sigkill");
  rank.notes["oom-kill"] = "Out of memory: Killed process 4242 (python3) total-vm:912340kB";
  auto d = diagnose(builtin(), {rank}, {});
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.entry->id, "oom-kill");
  EXPECT_NE(d.explain.find("node2 ran out of host memory"), std::string::npos) << d.explain;
  EXPECT_NE(d.explain.find("Killed process 4242 (python3)"), std::string::npos) << d.explain;
}

TEST(Matcher, ALostNode) {
  auto rank = failed(2, "node3", How::lost, 0, {});
  rank.notes["lost"] = "no heartbeat for 3021 ms";
  auto d = diagnose(builtin(), {rank}, {});
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.entry->id, "node-lost");
  EXPECT_NE(d.explain.find("muster lost node3: no heartbeat for 3021 ms."), std::string::npos) << d.explain;
}

TEST(Matcher, APrimaryCauseBeatsTheRootCausesSymptom) {
  // The gang saw rank 0's connection error first, but rank 3 was OOM-killed: that is what happened.
  auto symptom = failed(0, "node1", How::exited, 1, {"RuntimeError: [pair.cc:589] Read error [x]:1: Connection reset by peer"});
  symptom.root = true;
  auto cause = failed(3, "node2", How::signaled, 9, {});
  cause.notes["oom-kill"] = "Killed process 99 (python3)";
  auto d = diagnose(builtin(), {symptom, cause}, {});
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.entry->id, "oom-kill");
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.others, std::vector<int>{0});
}

TEST(Matcher, TheSameErrorOnSeveralRanksIsNamedOnce) {
  std::vector<RankFailure> ranks;
  for (int rank : {4, 5, 6, 7}) {
    ranks.push_back(failed(rank, rank < 6 ? "node3" : "node4", How::exited, 1,
                           {"ModuleNotFoundError: No module named 'apex'"}));
  }
  ranks[2].root = true;
  auto d = diagnose(builtin(), ranks, {});
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.rank, 6);
  EXPECT_EQ(d.ranks, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(d.nodes, (std::vector<std::string>{"node3", "node4"}));
  auto text = format_diagnosis(d);
  EXPECT_NE(text.find("ranks 4-7 on node[3-4]"), std::string::npos) << text;
}

TEST(Matcher, ModulePresenceFillsTheFix) {
  auto rank = failed(2, "node2", How::exited, 1, {"ModuleNotFoundError: No module named 'muster_probe_mod'"});
  auto wanted = evidence_wanted(builtin(), {rank});
  EXPECT_EQ(wanted.modules, std::vector<std::string>{"muster_probe_mod"});
  ClusterFacts facts;
  facts.python = "/usr/bin/python3";
  facts.modules["muster_probe_mod"] = {{"node1"}, {"node2", "node3"}};
  auto d = diagnose(builtin(), {rank}, facts);
  EXPECT_NE(d.explain.find("it imports on: node1; it does not on:\nnode[2-3]"), std::string::npos) << d.explain;
  EXPECT_NE(d.fix.find("/usr/bin/python3 -m pip install"), std::string::npos) << d.fix;
}

TEST(Matcher, DoctorFindingsFillTheNetworkFix) {
  auto rank = failed(0, "node1", How::exited, 1,
                     {"RuntimeError: [./gloo/transport/tcp/pair.cc:799] connect [127.0.1.1]:19328: Connection refused"});
  EXPECT_TRUE(evidence_wanted(builtin(), {rank}).facts);
  ClusterFacts facts;
  facts.gathered = true;
  facts.findings.push_back({Severity::error, "loopback", "node2",
                            "node2 resolves its own name node2 to 127.0.1.1", "remove the line"});
  facts.findings.push_back({Severity::ok, "network", "", "eth0 on every node",
                            "export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0"});
  auto d = diagnose(builtin(), {rank}, facts);
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.entry->id, "loopback-address");
  EXPECT_NE(d.explain.find("connect to 127.0.1.1"), std::string::npos) << d.explain;
  EXPECT_NE(d.explain.find("node2 resolves its own name node2 to 127.0.1.1"), std::string::npos) << d.explain;
  EXPECT_NE(d.fix.find("export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0"), std::string::npos) << d.fix;
}

TEST(Matcher, VersionSkewNeedsTheFacts) {
  auto rank = failed(1, "node2", How::exited, 1, {"NCCL WARN Message truncated : received 1024 bytes instead of 512"});
  EXPECT_NE(matched_id(rank), "version-skew");
  ClusterFacts facts;
  facts.gathered = true;
  facts.findings.push_back({Severity::error, "versions", "node2", "torch 2.1.0 on node2, 2.2.1 elsewhere",
                            "pip install torch==2.2.1 on node2"});
  EXPECT_EQ(matched_id(rank, facts), "version-skew");
}

TEST(Matcher, TheErrorFileIsReadFirst) {
  auto rank = failed(1, "node1", How::exited, 1, {"some unrelated last line"});
  rank.error_file = R"({"message": {"message": "KeyError: 'labels'", "extraInfo": {"py_callstack": "Traceback (most recent call last):\n  File \"t.py\", line 3, in main\nKeyError: 'labels'\n", "timestamp": "1700000000"}}})";
  auto d = diagnose(builtin(), {rank}, {});
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.entry->id, "python-exception");
  EXPECT_EQ(d.error, "KeyError: 'labels'");
  EXPECT_NE(format_diagnosis(d).find("error file: KeyError: 'labels'"), std::string::npos);
  EXPECT_EQ(error_file_lines("not json"), std::vector<std::string>{});
}

TEST(Matcher, NothingMatchesNothing) {
  auto d = diagnose(builtin(), {failed(0, "n", How::exited, 3, {"bye"})}, {});
  EXPECT_EQ(d.entry, nullptr);
  EXPECT_EQ(format_diagnosis(d), "");
  EXPECT_TRUE(diagnosis_json(d).empty());
}

TEST(Matcher, JsonForTheManifest) {
  auto d = diagnose(builtin(), {failed(0, "n1", How::signaled, 11, {})}, {});
  auto json = diagnosis_json(d);
  EXPECT_EQ(json["id"], "segfault");
  EXPECT_EQ(json["rank"], 0);
  EXPECT_EQ(json["node"], "n1");
  EXPECT_NE(json["explain"].get<std::string>().find("SIGSEGV (signal 11)"), std::string::npos);
}

}  // namespace
}  // namespace muster::diagnosis
