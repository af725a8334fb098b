#include "doctor/node/nvidia_smi.h"

#include <gtest/gtest.h>

namespace muster::doctor {
namespace {

// Recorded: an 8×H100 SXM node (driver 550.54.15).
constexpr const char* h100_query =
    "0, NVIDIA H100 80GB HBM3, 81559, GPU-2f3b6a4e-9c1d-4e8a-b0f5-7a1c2d3e4f50, 550.54.15\n"
    "1, NVIDIA H100 80GB HBM3, 81559, GPU-5a6b7c8d-1e2f-4a3b-8c4d-5e6f7a8b9c01, 550.54.15\n"
    "2, NVIDIA H100 80GB HBM3, 81559, GPU-9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c52, 550.54.15\n"
    "3, NVIDIA H100 80GB HBM3, 81559, GPU-0f1e2d3c-4b5a-4968-8776-655443322113, 550.54.15\n"
    "4, NVIDIA H100 80GB HBM3, 81559, GPU-11223344-5566-4788-99aa-bbccddeeff04, 550.54.15\n"
    "5, NVIDIA H100 80GB HBM3, 81559, GPU-a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c55, 550.54.15\n"
    "6, NVIDIA H100 80GB HBM3, 81559, GPU-deadbeef-0000-4111-8222-333344445556, 550.54.15\n"
    "7, NVIDIA H100 80GB HBM3, 81559, GPU-cafef00d-1234-4567-89ab-cdef01234567, 550.54.15\n";

// Recorded: a 2×A100 PCIe node, the second GPU in a state where memory and uuid read [N/A], CRLF endings.
constexpr const char* a100_query =
    "0, NVIDIA A100-PCIE-40GB, 40960, GPU-6c1e2b3a-7d8f-4e9a-a0b1-c2d3e4f5a6b7, 535.104.05\r\n"
    "1, NVIDIA A100-PCIE-40GB, [N/A], [N/A], 535.104.05\r\n";

constexpr const char* h100_header =
    "Tue Mar 12 10:04:51 2024       \n"
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
    "|-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
    "|=========================================+========================+======================|\n"
    "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |\n"
    "| N/A   31C    P0             71W /  700W |       4MiB /  81559MiB |      0%      Default |\n";

TEST(NvidiaSmi, ParsesEightH100s) {
  auto gpus = parse_gpu_query(h100_query);
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[0].index, 0);
  EXPECT_EQ(gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].memory_mib, 81559);
  EXPECT_EQ(gpus[0].uuid, "GPU-2f3b6a4e-9c1d-4e8a-b0f5-7a1c2d3e4f50");
  EXPECT_EQ(gpus[0].driver, "550.54.15");
  EXPECT_EQ(gpus[7].index, 7);
  EXPECT_EQ(gpus[7].uuid, "GPU-cafef00d-1234-4567-89ab-cdef01234567");
}

TEST(NvidiaSmi, NotAvailableFieldsKeepDefaults) {
  auto gpus = parse_gpu_query(a100_query);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(gpus[0].memory_mib, 40960);
  EXPECT_EQ(gpus[0].driver, "535.104.05");
  EXPECT_EQ(gpus[1].index, 1);
  EXPECT_EQ(gpus[1].memory_mib, 0);
  EXPECT_EQ(gpus[1].uuid, "");
  EXPECT_EQ(gpus[1].driver, "535.104.05");
}

TEST(NvidiaSmi, CommaInNameAndJunkLines) {
  auto gpus = parse_gpu_query("\nNo devices were found\n0, Odd, Name, 1024, GPU-x, 1.2\n");
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].name, "Odd,Name");
  EXPECT_EQ(gpus[0].memory_mib, 1024);
  EXPECT_EQ(gpus[0].uuid, "GPU-x");
  EXPECT_TRUE(parse_gpu_query("").empty());
}

TEST(NvidiaSmi, CudaVersionFromHeader) {
  EXPECT_EQ(parse_cuda_version(h100_header), "12.4");
  EXPECT_EQ(parse_cuda_version("Driver Version: 550.54.15     CUDA Version: 12.4"), "12.4");
  EXPECT_EQ(parse_cuda_version("| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |"),
            "11.4");
  EXPECT_EQ(parse_cuda_version("Driver Version: 550.54.15     CUDA Version: N/A"), "");
  EXPECT_EQ(parse_cuda_version("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."), "");
}

TEST(Nvcc, ReleaseFromVersionOutput) {
  constexpr const char* nvcc =
      "nvcc: NVIDIA (R) Cuda compiler driver\n"
      "Copyright (c) 2005-2024 NVIDIA Corporation\n"
      "Built on Thu_Mar_28_02:18:24_PDT_2024\n"
      "Cuda compilation tools, release 12.4, V12.4.131\n"
      "Build cuda_12.4.r12.4/compiler.34097967_0\n";
  EXPECT_EQ(parse_nvcc_release(nvcc), "12.4");
  EXPECT_EQ(parse_nvcc_release("bash: nvcc: command not found"), "");
}

}  // namespace
}  // namespace muster::doctor
