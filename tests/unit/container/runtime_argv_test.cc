#include "container/runtime_argv.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace muster::container {
namespace {

using Argv = std::vector<std::string>;

ContainerSpec job_spec() {
  ContainerSpec spec;
  spec.image = "localhost/muster-test:torch";
  spec.name = "muster-job1-0";
  spec.job_id = "job1";
  spec.mounts = {{"/work/repo", "/work/repo", false}, {"/data", "/data", true}};
  return spec;
}

AgentFiles node_files() {
  return {"/root/.cache/muster/3e98/muster", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
          {{"libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6"}, {"libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"}}};
}

const Argv kAgentArgs = {"--nonce", "abc", "--heartbeat-ms", "1000"};

// The part after the image: the node's loader runs muster with the node's libc.
const Argv kInnerAgent = {"/run/muster/ld.so", "--library-path", "/run/muster", "/run/muster/muster", "agent",
                          "--nonce",           "abc",            "--heartbeat-ms", "1000"};

Argv with_agent(Argv argv) {
  argv.insert(argv.end(), kInnerAgent.begin(), kInnerAgent.end());
  return argv;
}

TEST(RunAgentArgv, Podman) {
  Argv expected = with_agent({"podman", "run", "--rm", "-i", "--init", "--name", "muster-job1-0", "--label",
                              "muster.job=job1", "--network", "host", "--ipc", "host", "--pull", "never",
                              "--log-driver", "passthrough", "--ulimit", "memlock=-1:-1", "--ulimit",
                              "stack=67108864:67108864", "-v", "/work/repo:/work/repo", "-v", "/data:/data:ro", "-v",
                              "/root/.cache/muster/3e98/muster:/run/muster/muster:ro", "-v",
                              "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2:/run/muster/ld.so:ro", "-v",
                              "/usr/lib/x86_64-linux-gnu/libm.so.6:/run/muster/libm.so.6:ro", "-v",
                              "/usr/lib/x86_64-linux-gnu/libc.so.6:/run/muster/libc.so.6:ro", "-e", "SSH_CONNECTION",
                              "localhost/muster-test:torch"});
  EXPECT_EQ(run_agent_argv(Runtime::podman, job_spec(), node_files(), {}, {"SSH_CONNECTION"}, kAgentArgs), expected);
}

TEST(RunAgentArgv, DockerTheSameButItsLogDriverAndGpus) {
  Argv expected = with_agent({"docker", "run", "--rm", "-i", "--init", "--name", "muster-job1-0", "--label",
                              "muster.job=job1", "--network", "host", "--ipc", "host", "--pull", "never",
                              "--log-driver", "none", "--ulimit", "memlock=-1:-1", "--ulimit",
                              "stack=67108864:67108864", "--gpus", "all", "-v", "/work/repo:/work/repo", "-v",
                              "/data:/data:ro", "-v", "/root/.cache/muster/3e98/muster:/run/muster/muster:ro", "-v",
                              "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2:/run/muster/ld.so:ro", "-v",
                              "/usr/lib/x86_64-linux-gnu/libm.so.6:/run/muster/libm.so.6:ro", "-v",
                              "/usr/lib/x86_64-linux-gnu/libc.so.6:/run/muster/libc.so.6:ro",
                              "localhost/muster-test:torch"});
  EXPECT_EQ(run_agent_argv(Runtime::docker, job_spec(), node_files(), {"--gpus", "all"}, {}, kAgentArgs), expected);
}

TEST(RunAgentArgv, PrivateShmNoLimitsPullAndExtraOptions) {
  ContainerSpec spec = job_spec();
  spec.mounts.clear();
  spec.ulimits.clear();
  spec.shm_size = "16g";
  spec.pull = "missing";
  spec.options = {"--privileged"};
  AgentFiles files{"/m", "/ld.so", {}};
  Argv expected = with_agent({"podman", "run", "--rm", "-i", "--init", "--name", "muster-job1-0", "--label",
                              "muster.job=job1", "--network", "host", "--ipc", "private", "--shm-size", "16g",
                              "--pull", "missing", "--log-driver", "passthrough", "--device", "nvidia.com/gpu=all",
                              "-v", "/m:/run/muster/muster:ro", "-v", "/ld.so:/run/muster/ld.so:ro", "--privileged",
                              "localhost/muster-test:torch"});
  EXPECT_EQ(run_agent_argv(Runtime::podman, spec, files, {"--device", "nvidia.com/gpu=all"}, {}, kAgentArgs),
            expected);
}

TEST(RunAgentArgv, PodmanOnATerminalAttachesThroughConmon) {
  auto argv = run_agent_argv(Runtime::podman, job_spec(), node_files(), {}, {}, kAgentArgs, /*stdio_is_tty=*/true);
  auto driver = std::find(argv.begin(), argv.end(), "--log-driver");
  ASSERT_NE(driver, argv.end());
  EXPECT_EQ(*(driver + 1), "none");
}

TEST(ExecAgentArgv, JoinsTheRunningContainer) {
  ContainerSpec spec;
  spec.existing = "train-node1";
  Argv expected = {"docker", "exec", "-i", "-e", "SSH_CONNECTION", "train-node1",
                   "/tmp/.muster-3e98-7f01/ld.so", "--library-path", "/tmp/.muster-3e98-7f01",
                   "/tmp/.muster-3e98-7f01/muster", "agent", "--nonce", "abc", "--heartbeat-ms", "1000"};
  EXPECT_EQ(exec_agent_argv(Runtime::docker, spec, existing_agent_dir("3e98", "7f01"), {"SSH_CONNECTION"}, kAgentArgs),
            expected);
  expected[0] = "podman";
  EXPECT_EQ(exec_agent_argv(Runtime::podman, spec, existing_agent_dir("3e98", "7f01"), {"SSH_CONNECTION"}, kAgentArgs),
            expected);
}

TEST(ImageArgv, InspectSaveLoadTagProbe) {
  EXPECT_EQ(image_id_argv(Runtime::podman, "img:1"), (Argv{"podman", "image", "inspect", "--format", "{{.Id}}", "img:1"}));
  EXPECT_EQ(image_id_argv(Runtime::docker, "img:1"), (Argv{"docker", "image", "inspect", "--format", "{{.Id}}", "img:1"}));
  EXPECT_EQ(save_argv(Runtime::podman, "img:1", "/c/i.tar"),
            (Argv{"podman", "save", "--quiet", "--format", "docker-archive", "-o", "/c/i.tar", "img:1"}));
  EXPECT_EQ(save_argv(Runtime::docker, "img:1", "/c/i.tar"), (Argv{"docker", "save", "-o", "/c/i.tar", "img:1"}));
  EXPECT_EQ(load_argv(Runtime::podman, "/c/i.tar"), (Argv{"podman", "load", "--quiet", "-i", "/c/i.tar"}));
  EXPECT_EQ(load_argv(Runtime::docker, "/c/i.tar"), (Argv{"docker", "load", "--quiet", "-i", "/c/i.tar"}));
  EXPECT_EQ(tag_argv(Runtime::docker, "6fb5", "img:1"), (Argv{"docker", "tag", "6fb5", "img:1"}));
  // podman: the node's own nofile and nproc (it would ask for its maximum of each: node_ulimits.h).
  NodeLimits node{1024, 20000, 32768, 32768};
  EXPECT_EQ(probe_argv(Runtime::podman, "img:1", "python3", {"-c", "print(1)"}, node),
            (Argv{"podman", "run", "--rm", "--pull", "never", "--network", "host", "--ulimit", "nofile=1024:20000",
                  "--ulimit", "nproc=32768:32768", "--entrypoint", "python3", "img:1", "-c", "print(1)"}));
  EXPECT_EQ(probe_argv(Runtime::docker, "img:1", "python3", {"-c", "print(1)"}, node),
            (Argv{"docker", "run", "--rm", "--pull", "never", "--network", "host", "--entrypoint", "python3", "img:1",
                  "-c", "print(1)"}));
}

TEST(ImageIds, DockerAndPodmanSpellingsAgree) {
  EXPECT_EQ(normalize_image_id("sha256:6fb54dcf\n"), "6fb54dcf");
  EXPECT_EQ(normalize_image_id(" 6fb54dcf "), "6fb54dcf");
}

}  // namespace
}  // namespace muster::container

namespace muster::container {
namespace {

TEST(EnvNamesToPass, NamesAndPrefixesThatTheNodeSets) {
  std::vector<std::string> environment = {"PATH=/usr/bin", "SLURM_JOB_ID=7", "SSH_CONNECTION=1 2 3 4",
                                          "SLURM_NODEID=0", "CUDA_VISIBLE_DEVICES=0,1", "SLURMD_NODENAME=n1"};
  EXPECT_EQ(env_names_to_pass(ContainerSpec{}.pass_env, environment),
            (std::vector<std::string>{"SSH_CONNECTION", "SLURM_JOB_ID", "SLURM_NODEID", "CUDA_VISIBLE_DEVICES"}));
  EXPECT_EQ(env_names_to_pass({"SSH_CONNECTION", "HOME"}, {"PATH=/x"}), std::vector<std::string>{});
  EXPECT_EQ(env_names_to_pass({"A", "A*"}, {"A=1", "AB=2"}), (std::vector<std::string>{"A", "AB"}));
}

}  // namespace
}  // namespace muster::container
