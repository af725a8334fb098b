// The driver's kernel-log lines, from the fixtures (tests/gpu/fixtures/xid-all/kmsg: written from NVIDIA's
// documented formats, not recorded; see its README): every XID line gives its code, GPU, process and detail.
#include "gpu/kernel_events.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpu/proc_driver.h"

namespace muster::gpu {
namespace {

std::string fixture(const std::string& path) {
  std::ifstream in(std::string(MUSTER_GPU_FIXTURES) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The messages of a /dev/kmsg fixture (the record header dropped, as posix/kernel_log.h does).
std::vector<std::string> messages(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream lines(fixture(path));
  for (std::string line; std::getline(lines, line);) out.push_back(line.substr(line.find(';') + 1));
  return out;
}

TEST(KernelEvents, EveryXidLineOfTheFixture) {
  std::vector<GpuKernelEvent> events;
  for (const auto& message : messages("xid-all/kmsg")) {
    if (auto event = parse_gpu_kernel_line(message)) events.push_back(*event);
  }
  std::vector<int> codes;
  for (const auto& event : events) codes.push_back(event.xid);
  EXPECT_EQ(codes, (std::vector<int>{13, 13, 43, 31, 45, 48, 63, 64, 92, 94, 95, 74, 61, 62, 119, 120, 79, 79, 154}));
  EXPECT_EQ(events[0].pci, "0000:18:00");
  EXPECT_EQ(events[0].pid, 41233);
  EXPECT_EQ(events[0].process, "python3");
  EXPECT_EQ(events[0].detail, "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address");
  // pid='<unknown>', name=<unknown>: neither is known
  EXPECT_EQ(events[6].xid, 63);
  EXPECT_EQ(events[6].pid, -1);
  EXPECT_EQ(events[6].process, "");
  EXPECT_NE(events[6].detail.find("marked for remapping"), std::string::npos);
  // XID 154 has no pid or name at all
  EXPECT_EQ(events.back().pid, -1);
  EXPECT_EQ(events.back().detail, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)");
  // the line without a code is XID 79 of the same GPU
  EXPECT_EQ(events[17].pci, "0000:db:00");
  EXPECT_EQ(events[17].detail, "GPU has fallen off the bus.");
}

TEST(KernelEvents, OtherLinesAreNotEvents) {
  EXPECT_FALSE(parse_gpu_kernel_line("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15"));
  EXPECT_FALSE(parse_gpu_kernel_line("Out of memory: Killed process 1234 (python3)"));
  EXPECT_FALSE(parse_gpu_kernel_line("NVRM: Xid (PCI:0000:3b:00): oops"));
  EXPECT_FALSE(parse_gpu_kernel_line("NVRM: GPU at PCI:0000:3b:00: GPU-1234"));
}

TEST(KernelEvents, UuidLine) {
  auto line = parse_gpu_uuid_line("NVRM: GPU at PCI:0000:18:00: GPU-2b1c7a6e-5f4d-4c3b-9a81-0d6e5f4c3b2a");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->pci, "0000:18:00");
  EXPECT_EQ(line->uuid, "GPU-2b1c7a6e-5f4d-4c3b-9a81-0d6e5f4c3b2a");
  EXPECT_FALSE(parse_gpu_uuid_line("NVRM: GPU Board Serial Number: 1654922006536"));
}

TEST(KernelEvents, OneSpellingOfABusId) {
  EXPECT_EQ(normalize_pci("00000000:3B:00.0"), "0000:3b:00");  // nvidia-smi
  EXPECT_EQ(normalize_pci("0000:3b:00.0"), "0000:3b:00");      // /proc/driver/nvidia
  EXPECT_EQ(normalize_pci("PCI:0000:3b:00"), "0000:3b:00");    // the kernel log
  EXPECT_EQ(normalize_pci("3b:00.0"), "0000:3b:00");
  EXPECT_EQ(normalize_pci("not a bus"), "not a bus");
}

TEST(KernelEvents, DescribedForTheLiveLog) {
  std::vector<GpuIdentity> gpus = {{3, "0000:5d:00", "GPU-0f1e", "H100"}};
  GpuKernelEvent event{79, "0000:5d:00", 60600, "python3", "GPU has fallen off the bus.", 4800000};
  EXPECT_EQ(describe_event("node4", gpus, event).substr(0, 72),
            "node4: GPU 3 (0000:5d:00, GPU-0f1e) XID 79 (GPU has fallen off the bus; ");
  EXPECT_NE(describe_event("node4", gpus, event).find("pid 60600 python3): the GPU stopped answering on PCIe"),
            std::string::npos);
  event.pci = "0000:99:00";  // a GPU the node did not name
  EXPECT_EQ(describe_event("node4", gpus, event).substr(0, 35), "node4: GPU at 0000:99:00 XID 79 (GP");
}

TEST(ProcDriver, InformationFile) {
  auto gpu = parse_proc_gpu_information(fixture("proc-driver-nvidia/information"));
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->index, 3);
  EXPECT_EQ(gpu->pci, "0000:5d:00");
  EXPECT_EQ(gpu->uuid, "GPU-0f1e2d3c-4b5a-4697-a8b9-cadbecfd0e1f");
  EXPECT_EQ(gpu->model, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(parse_proc_gpu_information("Model: something\n"));
}

}  // namespace
}  // namespace muster::gpu
