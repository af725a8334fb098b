#include "launch/container_launch.h"

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

TEST(ResolveContainer, NothingAskedNothingResolved) {
  auto spec = resolve_container({}, "/work", {});
  ASSERT_TRUE(spec);
  EXPECT_FALSE(*spec);
  ContainerRequest stray;
  stray.mounts = {"/a:/b"};
  EXPECT_FALSE(resolve_container(stray, "/work", {}));
}

TEST(ResolveContainer, WorkingDirectoryAndSyncedDirsMountedAtTheSamePaths) {
  ContainerRequest request;
  request.image = "img";
  request.mounts = {"/data:/data:ro", "/work/repo:/code"};
  auto spec = resolve_container(request, "/work/repo", {"/work/repo", "/srv/data/"});
  ASSERT_TRUE(spec && *spec);
  const auto& mounts = (*spec)->mounts;
  ASSERT_EQ(mounts.size(), 4u);
  EXPECT_EQ(mounts[0], (container::Mount{"/data", "/data", true}));
  EXPECT_EQ(mounts[1], (container::Mount{"/work/repo", "/code", false}));
  EXPECT_EQ(mounts[2], (container::Mount{"/work/repo", "/work/repo", false}));
  EXPECT_EQ(mounts[3], (container::Mount{"/srv/data", "/srv/data", false}));
  EXPECT_EQ((*spec)->ulimits, container::default_ulimits());
  EXPECT_EQ((*spec)->shm_size, "");
  EXPECT_EQ((*spec)->pull, "never");
}

TEST(ResolveContainer, AUserMountOnTheWorkingDirectoryWins) {
  ContainerRequest request;
  request.image = "img";
  request.mounts = {"/elsewhere:/work/repo:ro"};
  auto spec = resolve_container(request, "/work/repo", {});
  ASSERT_TRUE(spec && *spec);
  ASSERT_EQ((*spec)->mounts.size(), 1u);
  EXPECT_TRUE((*spec)->mounts[0].read_only);
}

TEST(ResolveContainer, FlagErrorsNameTheFlag) {
  ContainerRequest both;
  both.image = "img";
  both.existing = "c";
  EXPECT_FALSE(resolve_container(both, "/w", {}));
  ContainerRequest bad_shm;
  bad_shm.image = "img";
  bad_shm.shm_size = "lots";
  auto shm = resolve_container(bad_shm, "/w", {});
  ASSERT_FALSE(shm);
  EXPECT_NE(shm.error().message.find("--container-shm-size"), std::string::npos);
  ContainerRequest bad_limit;
  bad_limit.image = "img";
  bad_limit.ulimits = {"memlock"};
  EXPECT_FALSE(resolve_container(bad_limit, "/w", {}));
  ContainerRequest existing_with_mount;
  existing_with_mount.existing = "c";
  existing_with_mount.mounts = {"/a:/a"};
  EXPECT_FALSE(resolve_container(existing_with_mount, "/w", {}));
}

TEST(ResolveContainer, ExistingContainerGetsNoMounts) {
  ContainerRequest request;
  request.existing = "train";
  request.runtime = "docker";
  auto spec = resolve_container(request, "/work", {"/work"});
  ASSERT_TRUE(spec && *spec);
  EXPECT_TRUE((*spec)->mounts.empty());
  EXPECT_EQ((*spec)->runtime, "docker");
}

TEST(ContainerAgentArgs, NameAndJobPerNode) {
  ContainerRequest request;
  request.image = "img";
  auto spec = resolve_container(request, "/w", {});
  auto args = container_agent_args(**spec, "job7", 2);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0], "--container-spec");
  auto back = container::spec_from_json(args[1]);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->name, "muster-job7-2");
  EXPECT_EQ(back->job_id, "job7");
}

TEST(ExplainContainerError, HintsForAMissingImageAndARefusedLimit) {
  container::ContainerSpec spec;
  spec.image = "localhost/x:1";
  auto missing = explain_container_error({ErrorKind::unreachable, "Error: localhost/x:1: image not known"}, spec);
  EXPECT_NE(missing.message.find("muster image push localhost/x:1"), std::string::npos) << missing.message;
  auto nofile = explain_container_error(
      {ErrorKind::unreachable, "error setting rlimits for ready process: error setting rlimit type 7: operation not "
                               "permitted"},
      spec);
  EXPECT_NE(nofile.message.find("podman sets nofile itself"), std::string::npos) << nofile.message;
  auto memlock = explain_container_error({ErrorKind::unreachable, "setrlimit `RLIMIT_MEMLOCK`: Operation not permitted"},
                                         spec);
  EXPECT_NE(memlock.message.find("--container-ulimit memlock="), std::string::npos) << memlock.message;
  auto other = explain_container_error({ErrorKind::unreachable, "ssh: connect refused"}, spec);
  EXPECT_EQ(other.message, "ssh: connect refused");
}

}  // namespace
}  // namespace muster::launch
