#include "launch/fault_judge.h"

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

diagnosis::RankFailure failed(int rank, const std::string& node, std::vector<std::string> lines, bool root = false) {
  diagnosis::RankFailure failure;
  failure.rank = rank;
  failure.node = node;
  failure.code = 1;
  failure.root = root;
  failure.lines = std::move(lines);
  return failure;
}

std::optional<size_t> host_of(const std::string& name) {
  if (name.rfind("node", 0) != 0) return std::nullopt;
  return static_cast<size_t>(std::stoi(name.substr(4)) - 1);
}

// A catalogue entry that calls the failure the node's.
diagnosis::FailureEntry node_entry(std::string title) {
  diagnosis::FailureEntry entry;
  entry.title = std::move(title);
  entry.fault = diagnosis::FaultClass::node;
  return entry;
}

// `entry` matched on rank `rank` of `node` (its title as matched: placeholders expanded).
diagnosis::Diagnosis matched(const diagnosis::FailureEntry& entry, int rank, const std::string& node) {
  diagnosis::Diagnosis diagnosis;
  diagnosis.entry = &entry;
  diagnosis.rank = rank;
  diagnosis.node = node;
  diagnosis.title = entry.title;
  return diagnosis;
}

AttemptFacts facts(int world_size, std::map<size_t, std::string> gpu_faults = {},
                   FirstStep first_step = FirstStep::unknown) {
  return AttemptFacts{world_size, host_of, std::move(gpu_faults), first_step};
}

TEST(FaultJudge, TheSameExceptionOnEveryRankIsTheWorkloads) {
  std::vector<diagnosis::RankFailure> failures = {
      failed(0, "node1", {"Traceback (most recent call last):", "ValueError: bad config"}, true),
      failed(1, "node2", {"ValueError: bad config"})};
  Fault fault = judge_fault(failures, diagnosis::Diagnosis{}, facts(2));
  EXPECT_EQ(Fault::Kind::workload, fault.kind);
  EXPECT_NE(std::string::npos, fault.reason.find("the same exception on every rank (ValueError: bad config)"));
  EXPECT_EQ("ValueError: bad config", fault.exception);
}

TEST(FaultJudge, DifferentExceptionsAreNotCalledTheWorkloads) {
  std::vector<diagnosis::RankFailure> failures = {failed(0, "node1", {"RuntimeError: NCCL error"}, true),
                                                  failed(1, "node2", {"ConnectionResetError: peer"})};
  Fault fault = judge_fault(failures, diagnosis::Diagnosis{}, facts(2));
  EXPECT_EQ(Fault::Kind::unknown, fault.kind);
  EXPECT_EQ("rank 0 on node1 failed (exit 1)", fault.reason);
  EXPECT_EQ("RuntimeError: NCCL error", fault.exception);
}

TEST(FaultJudge, ACatalogueEntryOfTheNodesNamesItsNode) {
  diagnosis::FailureEntry oom = node_entry("killed by the kernel's OOM killer");
  diagnosis::Diagnosis diagnosis = matched(oom, 5, "node3");
  std::vector<diagnosis::RankFailure> failures = {failed(5, "node3", {}, true)};
  Fault fault = judge_fault(failures, diagnosis, facts(8));
  EXPECT_EQ(Fault::Kind::node, fault.kind);
  EXPECT_EQ(std::optional<size_t>(2), fault.node);
  EXPECT_EQ("killed by the kernel's OOM killer (rank 5)", fault.reason);
}

TEST(FaultJudge, ANodesOwnGpuFaultDecidesBeforeWhatTheRanksSaid) {
  // Every rank raised the same error (the GPU fell off the bus under them): without the GPU fault that is the
  // workload's and the job would stop; with it, node2 is at fault and is left out.
  std::vector<diagnosis::RankFailure> failures = {failed(0, "node1", {"RuntimeError: CUDA error"}, true),
                                                  failed(1, "node2", {"RuntimeError: CUDA error"})};
  Fault without = judge_fault(failures, diagnosis::Diagnosis{}, facts(2));
  EXPECT_EQ(Fault::Kind::workload, without.kind);
  std::map<size_t, std::string> gpu = {{1, "GPU 0 (0000:3b:00) XID 79 (GPU has fallen off the bus)"}};
  Fault fault = judge_fault(failures, diagnosis::Diagnosis{}, facts(2, gpu));
  EXPECT_EQ(Fault::Kind::node, fault.kind);
  EXPECT_EQ(std::optional<size_t>(1), fault.node);
  EXPECT_EQ("GPU 0 (0000:3b:00) XID 79 (GPU has fallen off the bus)", fault.reason);
}

// A failure nothing else explains, where steps are counted and no rank made one: the workload's (it would fail so
// on every try). Where some rank stepped, or nobody counts steps, it stays unknown (retried).
TEST(FaultJudge, AFailureBeforeTheFirstStepIsTheWorkloads) {
  std::vector<diagnosis::RankFailure> failures = {failed(1, "node2", {"FileNotFoundError: data/train.bin"}, true)};
  Fault before = judge_fault(failures, diagnosis::Diagnosis{}, facts(2, {}, FirstStep::not_reached));
  EXPECT_EQ(Fault::Kind::workload, before.kind);
  EXPECT_EQ("rank 1 on node2 failed (exit 1), before any rank's first step", before.reason);
  EXPECT_EQ("FileNotFoundError: data/train.bin", before.exception);
  EXPECT_EQ(Fault::Kind::unknown, judge_fault(failures, diagnosis::Diagnosis{}, facts(2, {}, FirstStep::reached)).kind);
  EXPECT_EQ(Fault::Kind::unknown, judge_fault(failures, diagnosis::Diagnosis{}, facts(2, {}, FirstStep::unknown)).kind);
}

// Before the first step a node's fault is still the node's: its catalogue entry, its GPU.
TEST(FaultJudge, ANodesFaultBeforeTheFirstStepIsStillTheNodes) {
  diagnosis::FailureEntry nccl = node_entry("NCCL could not reach a peer");
  diagnosis::Diagnosis diagnosis = matched(nccl, 2, "node2");
  std::vector<diagnosis::RankFailure> failures = {failed(2, "node2", {"RuntimeError: NCCL error"}, true)};
  Fault fault = judge_fault(failures, diagnosis, facts(4, {}, FirstStep::not_reached));
  EXPECT_EQ(Fault::Kind::node, fault.kind);
  EXPECT_EQ(std::optional<size_t>(1), fault.node);
  Fault gpu = judge_fault(failures, diagnosis::Diagnosis{}, facts(4, {{2, "GPU 1 XID 48"}}, FirstStep::not_reached));
  EXPECT_EQ(Fault::Kind::node, gpu.kind);
  EXPECT_EQ(std::optional<size_t>(2), gpu.node);
}

TEST(FaultJudge, LastExceptionReadsTheLastExceptionLine) {
  EXPECT_EQ("KeyError: 'lr'", last_exception(failed(0, "n", {"Traceback", "KeyError: 'lr'", "  "})));
  EXPECT_EQ("torch.distributed.DistBackendError: x", last_exception(failed(0, "n", {"torch.distributed.DistBackendError: x"})));
  EXPECT_EQ("", last_exception(failed(0, "n", {"step 10 loss 0.1", "Segmentation fault"})));
}

}  // namespace
}  // namespace muster::launch
