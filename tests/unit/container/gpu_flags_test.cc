#include "container/gpu_flags.h"

#include <gtest/gtest.h>

namespace muster::container {
namespace {

using Flags = std::vector<std::string>;

TEST(GpuFlags, DockerUsesGpusAllWithTheToolkit) {
  NodeGpuFacts facts{.nvidia_devices = true, .cdi_nvidia = false, .nvidia_toolkit = true};
  EXPECT_EQ(*gpu_flags(Runtime::docker, GpuMode::auto_detect, facts), (Flags{"--gpus", "all"}));
  EXPECT_EQ(*gpu_flags(Runtime::docker, GpuMode::all, facts), (Flags{"--gpus", "all"}));
  EXPECT_EQ(*gpu_flags(Runtime::docker, GpuMode::none, facts), Flags{});
}

TEST(GpuFlags, PodmanUsesTheCdiDevice) {
  NodeGpuFacts facts{.nvidia_devices = true, .cdi_nvidia = true, .nvidia_toolkit = true};
  EXPECT_EQ(*gpu_flags(Runtime::podman, GpuMode::auto_detect, facts), (Flags{"--device", "nvidia.com/gpu=all"}));
}

TEST(GpuFlags, NodeWithoutGpusGetsNoFlagsUnlessAllWereAskedFor) {
  NodeGpuFacts none;
  EXPECT_EQ(*gpu_flags(Runtime::podman, GpuMode::auto_detect, none), Flags{});
  EXPECT_EQ(*gpu_flags(Runtime::docker, GpuMode::auto_detect, none), Flags{});
  auto all = gpu_flags(Runtime::docker, GpuMode::all, none);
  ASSERT_FALSE(all);
  EXPECT_NE(all.error().message.find("no NVIDIA GPU"), std::string::npos);
  EXPECT_EQ(missing_gpu_runtime(Runtime::podman, none), "");
}

TEST(GpuFlags, GpusWithoutTheRuntimeSupportSayHowToInstallIt) {
  NodeGpuFacts bare{.nvidia_devices = true, .cdi_nvidia = false, .nvidia_toolkit = false};
  auto podman = gpu_flags(Runtime::podman, GpuMode::auto_detect, bare);
  ASSERT_FALSE(podman);
  EXPECT_NE(podman.error().message.find("nvidia-ctk cdi generate"), std::string::npos) << podman.error().message;
  EXPECT_NE(podman.error().message.find("--container-gpus none"), std::string::npos);
  auto docker = gpu_flags(Runtime::docker, GpuMode::auto_detect, bare);
  ASSERT_FALSE(docker);
  EXPECT_NE(docker.error().message.find("nvidia-container-toolkit"), std::string::npos) << docker.error().message;
  // The toolkit alone does not make a CDI spec for podman.
  NodeGpuFacts toolkit{.nvidia_devices = true, .cdi_nvidia = false, .nvidia_toolkit = true};
  EXPECT_FALSE(gpu_flags(Runtime::podman, GpuMode::auto_detect, toolkit));
  EXPECT_EQ(*gpu_flags(Runtime::podman, GpuMode::none, bare), Flags{});
}

}  // namespace
}  // namespace muster::container
