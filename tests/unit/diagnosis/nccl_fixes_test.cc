// The built-in NCCL entries name what to set from the nodes' own facts: every one whose fix carries {fix:network}
// asks the head for doctor's findings, and the report gets the interface doctor would pick (NCCL_SOCKET_IFNAME),
// never the placeholder. The watchdog timeout also says to re-run with NCCL_DEBUG=INFO.
#include <gtest/gtest.h>

#include "diagnosis/matcher.h"

namespace muster::diagnosis {
namespace {

using How = RankFailure::How;

const Catalogue& builtin() {
  static const Catalogue catalogue = load_catalogue({}).value();
  return catalogue;
}

RankFailure failed_with(const std::string& line) {
  RankFailure failure;
  failure.rank = 3;
  failure.node = "gpu7";
  failure.how = How::exited;
  failure.code = 1;
  failure.root = true;
  failure.lines = {"Traceback (most recent call last):", line};
  return failure;
}

// What doctor's network check says on nodes that share ib0 (check_network.cc's ok finding). The finding's type is
// named through ClusterFacts, wherever it lives.
using FindingType = decltype(ClusterFacts{}.findings)::value_type;
using SeverityType = decltype(FindingType{}.severity);

ClusterFacts shared_interface_facts() {
  ClusterFacts facts;
  facts.gathered = true;
  facts.findings.push_back({SeverityType::ok, "network", "", "ib0 is up on every node, on one subnet (10.3.0.0/24 assumed)",
                            "export NCCL_SOCKET_IFNAME=ib0 GLOO_SOCKET_IFNAME=ib0"});
  return facts;
}

struct NcclCase {
  const char* id;
  const char* line;  // as PyTorch / NCCL print it
};

const NcclCase kCases[] = {
    {"nccl-interface", "gpu7:4242:4242 [0] NCCL INFO NET/Socket : no interface found"},
    {"nccl-system-error", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                          "NCCLUtils.hpp:219, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL "
                          "version 2.19.3"},
    {"nccl-watchdog-timeout", "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1201, "
                              "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
                              "milliseconds before timing out."},
};

TEST(NcclFixes, EveryNcclEntryWithANetworkFixGetsTheInterfaceFromTheNodesFacts) {
  int with_network_fix = 0;
  for (const auto& entry : builtin().entries) {
    if (!entry.id.starts_with("nccl") || entry.fix.find("{fix:network}") == std::string::npos) continue;
    ++with_network_fix;
    const NcclCase* found = nullptr;
    for (const auto& c : kCases) {
      if (entry.id == c.id) found = &c;
    }
    ASSERT_NE(found, nullptr) << entry.id << " uses {fix:network} but this test has no recorded line for it";
    auto failure = failed_with(found->line);
    EXPECT_TRUE(evidence_wanted(builtin(), {failure}).facts) << entry.id << " must ask the head for doctor's facts";
    auto d = diagnose(builtin(), {failure}, shared_interface_facts());
    ASSERT_NE(d.entry, nullptr) << found->line;
    EXPECT_EQ(d.entry->id, entry.id);
    EXPECT_NE(d.fix.find("export NCCL_SOCKET_IFNAME=ib0 GLOO_SOCKET_IFNAME=ib0"), std::string::npos)
        << entry.id << ": " << d.fix;
    EXPECT_EQ(d.fix.find("{fix:"), std::string::npos) << d.fix;
  }
  // nccl-interface, nccl-system-error, nccl-watchdog-timeout at least: an entry that loses its placeholder fails.
  EXPECT_GE(with_network_fix, 3);
}

TEST(NcclFixes, TheWatchdogTimeoutSaysWhatToSetAndWhereTheDumpsAre) {
  auto failure = failed_with(kCases[2].line);
  ClusterFacts facts = shared_interface_facts();
  facts.run_dir = "/home/u/muster-runs/job-9";
  auto d = diagnose(builtin(), {failure}, facts);
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.entry->id, "nccl-watchdog-timeout");
  EXPECT_NE(d.fix.find("NCCL_DEBUG=INFO"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("NCCL_SOCKET_IFNAME=ib0"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("/home/u/muster-runs/job-9/flight-recorder"), std::string::npos) << d.fix;
  EXPECT_NE(d.explain.find("Rank 3 on gpu7"), std::string::npos) << d.explain;
}

TEST(NcclFixes, WithoutFactsTheFixStillMatchesAndLeavesNoPlaceholder) {
  auto d = diagnose(builtin(), {failed_with(kCases[2].line)}, {});
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(d.entry->id, "nccl-watchdog-timeout");
  EXPECT_EQ(d.fix.find("{fix:"), std::string::npos) << d.fix;
}

}  // namespace
}  // namespace muster::diagnosis
