#include "container/spec.h"

#include <gtest/gtest.h>

namespace muster::container {
namespace {

TEST(ContainerSpec, RoundTripsThroughJson) {
  ContainerSpec spec;
  spec.runtime = "docker";
  spec.image = "nvcr.io/nvidia/pytorch:24.05-py3";
  spec.name = "muster-job-1";
  spec.job_id = "job";
  spec.mounts = {{"/data", "/data", true}, {"/work/x y", "/work/x y", false}};
  spec.ulimits = {{"memlock", 8388608, 8388608}};
  spec.shm_size = "16g";
  spec.gpus = GpuMode::none;
  spec.pull = "missing";
  spec.options = {"--privileged", "--security-opt=label=disable"};
  spec.pass_env = {"SSH_CONNECTION", "A"};
  auto back = spec_from_json(to_json(spec));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, spec);
}

TEST(ContainerSpec, NeedsExactlyOneOfImageAndExisting) {
  ContainerSpec both;
  both.image = "a";
  both.existing = "b";
  EXPECT_FALSE(spec_from_json(to_json(both)));
  EXPECT_FALSE(spec_from_json(to_json(ContainerSpec{})));
  EXPECT_FALSE(spec_from_json("not json"));
  EXPECT_FALSE(spec_from_json(R"({"image": "a", "gpus": "some"})"));
  EXPECT_FALSE(spec_from_json(R"({"image": "a", "pull": "sometimes"})"));
  EXPECT_TRUE(spec_from_json(R"({"image": "a"})"));  // every other field has its default
}

TEST(ContainerSpec, NamesContainersAfterTheJobAndNode) {
  EXPECT_EQ(container_name("20261125-021111-895778", 3), "muster-20261125-021111-895778-3");
  EXPECT_EQ(container_name("my job/1", 0), "muster-my_job_1-0");
}

TEST(Mounts, ParseSourceTargetAndMode) {
  EXPECT_EQ(*parse_mount("/a:/b"), (Mount{"/a", "/b", false}));
  EXPECT_EQ(*parse_mount("/a:/b:ro"), (Mount{"/a", "/b", true}));
  EXPECT_EQ(*parse_mount("/a:/b:rw"), (Mount{"/a", "/b", false}));
  for (const char* text : {"/a", "a:/b", "/a:b", "/a:/b:rx", ":/b", "/a:"}) EXPECT_FALSE(parse_mount(text)) << text;
}

TEST(Runtimes, ParseByName) {
  EXPECT_EQ(*parse_runtime("podman"), Runtime::podman);
  EXPECT_EQ(*parse_runtime("docker"), Runtime::docker);
  EXPECT_FALSE(parse_runtime("containerd"));
  EXPECT_EQ(*parse_gpu_mode("auto"), GpuMode::auto_detect);
  EXPECT_FALSE(parse_gpu_mode("0,1"));
}

}  // namespace
}  // namespace muster::container
