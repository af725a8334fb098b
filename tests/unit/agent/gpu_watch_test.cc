// The agent's GPU watch: which kernel-log lines become a GpuFault, how it names the GPU, whose fault it is; and the
// watch itself on a FIFO standing for /dev/kmsg (what the testbed test bind-mounts there).
#include "agent/gpu_watch.h"

#include <gtest/gtest.h>

#include "posix/event_loop.h"
#include "posix/pipe.h"

namespace muster::agent {
namespace {

const std::vector<gpu::GpuIdentity> kGpus = {{0, "0000:18:00", "GPU-aaaa", "NVIDIA H100 80GB HBM3"},
                                              {3, "0000:3b:00", "GPU-bbbb", "NVIDIA H100 80GB HBM3"}};

TEST(GpuWatch, AnXidOfTheNodeNamesTheGpuAndIsTheNodes) {
  auto fault = gpu_fault_of(kGpus, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.");
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(fault->xid, 79u);
  EXPECT_EQ(fault->pci, "0000:3b:00");
  EXPECT_TRUE(fault->node_fault);
  EXPECT_NE(fault->text.find("GPU 3 (0000:3b:00"), std::string::npos) << fault->text;
  EXPECT_NE(fault->text.find("XID 79 (GPU has fallen off the bus"), std::string::npos) << fault->text;
  EXPECT_FALSE(fault->text.starts_with(":")) << fault->text;
}

TEST(GpuWatch, UncorrectableEccIsTheNodesAProgramsFaultIsNot) {
  auto ecc = gpu_fault_of(kGpus, "NVRM: Xid (PCI:0000:18:00): 48, pid=77, name=python3, An uncorrectable double bit error");
  ASSERT_TRUE(ecc.has_value());
  EXPECT_TRUE(ecc->node_fault);
  EXPECT_NE(ecc->text.find("GPU 0 (0000:18:00"), std::string::npos) << ecc->text;
  auto program = gpu_fault_of(kGpus, "NVRM: Xid (PCI:0000:18:00): 13, pid=77, name=python3, Graphics Exception");
  ASSERT_TRUE(program.has_value());
  EXPECT_FALSE(program->node_fault);
  EXPECT_FALSE(gpu_fault_of(kGpus, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15").has_value());
  EXPECT_FALSE(gpu_fault_of(kGpus, "Out of memory: Killed process 12 (python3)").has_value());
}

TEST(GpuWatch, ReportsOnlyWhatArrivesAfterItStarts) {
  // A pipe opened by its /proc name reads as a FIFO; its write end stays open for the whole test.
  auto pipe = posix::make_pipe();
  ASSERT_TRUE(pipe.has_value());
  std::string fifo = "/proc/self/fd/" + std::to_string(pipe->read.get());
  auto loop = posix::EventLoop::create();
  ASSERT_TRUE(loop.has_value());
  std::vector<protocol::GpuFault> sent;
  GpuWatch watch(**loop, [&](const protocol::GpuFault& fault) { sent.push_back(fault); }, fifo);
  ASSERT_TRUE(watch.start());
  std::string lines =
      "6,1,5000000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n"
      "3,2,6000000,-;NVRM: Xid (PCI:0000:3b:00): 94, pid=1, name=python3, Contained ECC error\n"
      "3,3,6000001,-;NVRM: Xid (PCI:0000:18:00): 13, pid=1, name=python3, Graphics Exception\n";
  ASSERT_TRUE(posix::write_all(pipe->write.get(), lines).has_value());
  for (int round = 0; round < 50 && sent.size() < 2; ++round) ASSERT_TRUE((*loop)->run_once(100).has_value());
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].xid, 94u);
  EXPECT_TRUE(sent[0].node_fault);
  EXPECT_EQ(sent[1].xid, 13u);
  EXPECT_FALSE(sent[1].node_fault);
}

}  // namespace
}  // namespace muster::agent
