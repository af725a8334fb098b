#include "launch/rank_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace muster::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

cluster::Host host(std::string name, int slots) {
  cluster::Host h;
  h.name = std::move(name);
  h.slots = slots;
  return h;
}

// node-a runs ranks 0-1 (devices 0,1); node-b runs ranks 2-4 (devices 0,1,2).
cluster::RankPlan uneven_plan() {
  return cluster::make_rank_plan({{host("node-a", 2), {0, 1}}, {host("node-b", 3), {0, 1, 2}}});
}

JobInfo job() {
  JobInfo info;
  info.job_id = "job-42";
  info.master_addr = "10.0.0.1";
  info.master_port = 29500;
  info.restart_count = 1;
  info.max_restarts = 3;
  info.excluded_nodes = "node-c";
  info.restart_reason = "node-c lost";
  return info;
}

EnvList env_of(const cluster::RankPlan& plan, int node, int local, const JobInfo& info) {
  const auto& n = plan.nodes[static_cast<size_t>(node)];
  return rank_env(plan, n, n.ranks[static_cast<size_t>(local)], info);
}

const std::string* find(const EnvList& env, std::string_view name) {
  for (const auto& [k, v] : env) {
    if (k == name) return &v;
  }
  return nullptr;
}

TEST(RankEnv, FirstRankOfFirstNode) {
  const auto plan = uneven_plan();
  EXPECT_THAT(
      env_of(plan, 0, 0, job()),
      ElementsAre(Pair("MASTER_ADDR", "10.0.0.1"), Pair("MASTER_PORT", "29500"), Pair("WORLD_SIZE", "5"),
                  Pair("RANK", "0"), Pair("LOCAL_RANK", "0"), Pair("LOCAL_WORLD_SIZE", "2"),
                  Pair("GROUP_RANK", "0"), Pair("ROLE_RANK", "0"), Pair("ROLE_WORLD_SIZE", "5"),
                  Pair("ROLE_NAME", "default"), Pair("NODE_RANK", "0"), Pair("NNODES", "2"),
                  Pair("GROUP_WORLD_SIZE", "2"), Pair("CROSS_RANK", "0"), Pair("CROSS_SIZE", "2"),
                  Pair("LOCAL_SIZE", "2"), Pair("TORCHELASTIC_RUN_ID", "job-42"),
                  Pair("TORCHELASTIC_RESTART_COUNT", "1"), Pair("TORCHELASTIC_MAX_RESTARTS", "3"),
                  Pair("TORCHELASTIC_USE_AGENT_STORE", "False"), Pair("MUSTER_JOB_ID", "job-42"),
                  Pair("MUSTER_NODE", "node-a"), Pair("MUSTER_ATTEMPT", "1"),
                  Pair("MUSTER_EXCLUDED_NODES", "node-c"), Pair("MUSTER_RESTART_REASON", "node-c lost"),
                  Pair("OMP_NUM_THREADS", "1")));
}

TEST(RankEnv, LastRankOfSecondNode) {
  const auto plan = uneven_plan();
  EXPECT_THAT(
      env_of(plan, 1, 2, job()),
      ElementsAre(Pair("MASTER_ADDR", "10.0.0.1"), Pair("MASTER_PORT", "29500"), Pair("WORLD_SIZE", "5"),
                  Pair("RANK", "4"), Pair("LOCAL_RANK", "2"), Pair("LOCAL_WORLD_SIZE", "3"),
                  Pair("GROUP_RANK", "1"), Pair("ROLE_RANK", "4"), Pair("ROLE_WORLD_SIZE", "5"),
                  Pair("ROLE_NAME", "default"), Pair("NODE_RANK", "1"), Pair("NNODES", "2"),
                  Pair("GROUP_WORLD_SIZE", "2"), Pair("CROSS_RANK", "1"), Pair("CROSS_SIZE", "2"),
                  Pair("LOCAL_SIZE", "3"), Pair("TORCHELASTIC_RUN_ID", "job-42"),
                  Pair("TORCHELASTIC_RESTART_COUNT", "1"), Pair("TORCHELASTIC_MAX_RESTARTS", "3"),
                  Pair("TORCHELASTIC_USE_AGENT_STORE", "False"), Pair("MUSTER_JOB_ID", "job-42"),
                  Pair("MUSTER_NODE", "node-b"), Pair("MUSTER_ATTEMPT", "1"),
                  Pair("MUSTER_EXCLUDED_NODES", "node-c"), Pair("MUSTER_RESTART_REASON", "node-c lost"),
                  Pair("OMP_NUM_THREADS", "1")));
}

TEST(RankEnv, RanksAreContiguousAcrossUnevenNodes) {
  const auto plan = uneven_plan();
  std::vector<std::string> ranks, local_ranks, node_ranks;
  for (int node = 0; node < 2; ++node) {
    for (size_t local = 0; local < plan.nodes[static_cast<size_t>(node)].ranks.size(); ++local) {
      const EnvList env = env_of(plan, node, static_cast<int>(local), job());
      ranks.push_back(*find(env, "RANK"));
      local_ranks.push_back(*find(env, "LOCAL_RANK"));
      node_ranks.push_back(*find(env, "GROUP_RANK"));
    }
  }
  EXPECT_THAT(ranks, ElementsAre("0", "1", "2", "3", "4"));
  EXPECT_THAT(local_ranks, ElementsAre("0", "1", "0", "1", "2"));
  EXPECT_THAT(node_ranks, ElementsAre("0", "0", "1", "1", "1"));
}

TEST(RankEnv, NeverSetsCudaVisibleDevices) {
  const auto plan = cluster::make_rank_plan({{host("a", 4), {1, 3}}});
  EXPECT_EQ(find(env_of(plan, 0, 1, job()), "CUDA_VISIBLE_DEVICES"), nullptr);
}

TEST(RankEnv, OmpDefaultRuleFollowsTorchrun) {
  const auto plan = cluster::make_rank_plan({{host("solo", 1), {0}}, {host("pair", 2), {0, 1}}});
  EXPECT_EQ(find(env_of(plan, 0, 0, job()), "OMP_NUM_THREADS"), nullptr);  // one worker: OpenMP default
  ASSERT_NE(find(env_of(plan, 1, 0, job()), "OMP_NUM_THREADS"), nullptr);
  EXPECT_EQ(*find(env_of(plan, 1, 0, job()), "OMP_NUM_THREADS"), "1");
}

TEST(RankEnv, UserOmpValueWins) {
  const auto plan = cluster::make_rank_plan({{host("solo", 1), {0}}, {host("pair", 2), {0, 1}}});
  JobInfo info = job();
  info.omp_num_threads = 8;
  EXPECT_EQ(*find(env_of(plan, 0, 0, info), "OMP_NUM_THREADS"), "8");
  EXPECT_EQ(*find(env_of(plan, 1, 1, info), "OMP_NUM_THREADS"), "8");
  info.omp_num_threads = -1;  // a value muster leaves alone: nothing set, the propagated one stands
  EXPECT_EQ(find(env_of(plan, 1, 1, info), "OMP_NUM_THREADS"), nullptr);
}

TEST(RankEnv, OmpSettingFromUserEnv) {
  EXPECT_EQ(omp_num_threads_setting({}), 0);
  EXPECT_EQ(omp_num_threads_setting({{"OMP_PROC_BIND", "true"}}), 0);
  EXPECT_EQ(omp_num_threads_setting({{"OMP_NUM_THREADS", "4"}}), 4);
  EXPECT_EQ(omp_num_threads_setting({{"OMP_NUM_THREADS", "4"}, {"OMP_NUM_THREADS", "6"}}), 6);
  EXPECT_EQ(omp_num_threads_setting({{"OMP_NUM_THREADS", "4,2"}}), -1);
  EXPECT_EQ(omp_num_threads_setting({{"OMP_NUM_THREADS", "0"}}), -1);
  EXPECT_EQ(omp_num_threads_setting({{"OMP_NUM_THREADS", ""}}), -1);
  EXPECT_EQ(omp_num_threads_setting({{"OMP_NUM_THREADS", " 4"}}), -1);
}

TEST(PerNodeEnv, WholeNodeSetsNothing) {
  const auto plan = cluster::make_rank_plan({{host("a", 4), {1, 3}}});
  EXPECT_THAT(per_node_env(plan.nodes[0], DeviceSelection::whole_node), IsEmpty());
}

TEST(PerNodeEnv, FilteredSubsetPinsDevicesInLocalRankOrder) {
  const auto plan = cluster::make_rank_plan({{host("a", 4), {1, 3}}, {host("b", 4), {0, 1}}});
  EXPECT_THAT(per_node_env(plan.nodes[0], DeviceSelection::filtered),
              ElementsAre(Pair("CUDA_VISIBLE_DEVICES", "1,3")));
  EXPECT_THAT(per_node_env(plan.nodes[1], DeviceSelection::filtered),
              ElementsAre(Pair("CUDA_VISIBLE_DEVICES", "0,1")));
}

TEST(PerNodeEnv, FilterThatKeptTheWholeNodeSetsNothing) {
  const auto plan = cluster::make_rank_plan({{host("a", 3), {0, 1, 2}}, {host("b", -1), {0}}});
  EXPECT_THAT(per_node_env(plan.nodes[0], DeviceSelection::filtered), IsEmpty());
  // Slot count unknown: cannot tell it is the whole node, so pin as DeepSpeed does.
  EXPECT_THAT(per_node_env(plan.nodes[1], DeviceSelection::filtered),
              ElementsAre(Pair("CUDA_VISIBLE_DEVICES", "0")));
}

TEST(PerNodeRankEnv, LauncherVariablesOnly) {
  const auto plan = uneven_plan();
  EXPECT_THAT(
      per_node_rank_env(plan, plan.nodes[1], job()),
      ElementsAre(Pair("MASTER_ADDR", "10.0.0.1"), Pair("MASTER_PORT", "29500"), Pair("NODE_RANK", "1"),
                  Pair("NNODES", "2"), Pair("MUSTER_JOB_ID", "job-42"), Pair("MUSTER_NODE", "node-b"),
                  Pair("MUSTER_ATTEMPT", "1"), Pair("MUSTER_EXCLUDED_NODES", "node-c"),
                  Pair("MUSTER_RESTART_REASON", "node-c lost"), Pair("PET_MASTER_ADDR", "10.0.0.1"), Pair("PET_MASTER_PORT", "29500"),
                  Pair("PET_NODE_RANK", "1"), Pair("PET_NNODES", "2"), Pair("PET_NPROC_PER_NODE", "3")));
}

TEST(PerNodeRankEnv, NeverClaimsToBeAWorker) {
  const auto plan = uneven_plan();
  const EnvList env = per_node_rank_env(plan, plan.nodes[0], job());
  for (const char* name :
       {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "OMP_NUM_THREADS"}) {
    EXPECT_EQ(find(env, name), nullptr) << name;
  }
}

TEST(MusterEnvNames, CoverEverythingMusterSetsExceptOmp) {
  const auto plan = uneven_plan();
  const auto& names = muster_env_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  auto reserved = [&](const std::string& name) {
    return std::binary_search(names.begin(), names.end(), name);
  };
  for (const auto& [name, value] : env_of(plan, 0, 0, job()))
    EXPECT_EQ(reserved(name), name != "OMP_NUM_THREADS") << name;
  for (const auto& [name, value] : per_node_rank_env(plan, plan.nodes[0], job()))
    EXPECT_TRUE(reserved(name)) << name;
  EXPECT_FALSE(reserved("CUDA_VISIBLE_DEVICES"));
}

TEST(OverlayEnv, TopWinsAndResultIsSorted) {
  EXPECT_THAT(overlay_env({{"B", "base"}, {"A", "1"}, {"B", "base2"}}, {{"C", "3"}, {"B", "top"}}),
              ElementsAre(Pair("A", "1"), Pair("B", "top"), Pair("C", "3")));
  EXPECT_THAT(overlay_env({{"B", "1"}, {"B", "2"}}, {}), ElementsAre(Pair("B", "2")));
}

}  // namespace
}  // namespace muster::launch
