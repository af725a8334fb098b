// The job machine driven through fakes: FakeAgents records what it sends (and says which nodes are alive),
// FakeHost records notices and answers judge() as told. Each test plays the agents' side by hand.
#include "launch/job_machine.h"

#include <csignal>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster::launch {
namespace {

using ::testing::HasSubstr;

struct Sent {
  size_t node;
  protocol::HeadMessage message;
};

class FakeAgents final : public AgentLink {
 public:
  explicit FakeAgents(size_t nodes) : alive_(nodes, true) {}
  bool alive(size_t node) const override { return alive_[node]; }
  void send(size_t node, const protocol::HeadMessage& message) override { sent.push_back({node, message}); }
  void broadcast(const std::vector<size_t>& nodes, const protocol::HeadMessage& message) override {
    for (size_t node : nodes) {
      if (alive_[node]) sent.push_back({node, message});
    }
  }
  void reconnect(size_t node) override { reconnected.push_back(node); }

  template <typename M>
  std::vector<std::pair<size_t, M>> take() {
    std::vector<std::pair<size_t, M>> found;
    std::vector<Sent> rest;
    for (auto& entry : sent) {
      if (auto* m = std::get_if<M>(&entry.message)) found.emplace_back(entry.node, *m);
      else rest.push_back(entry);
    }
    sent = rest;
    return found;
  }

  std::vector<bool> alive_;
  std::vector<Sent> sent;
  std::vector<size_t> reconnected;
};

class FakeHost final : public JobHost {
 public:
  void notice(const std::string& text) override { notices.push_back(text); }
  std::string master_address(size_t node) override { return "10.0.0." + std::to_string(node + 1); }
  protocol::SpawnWorker spawn_worker(const Attempt& attempt, const cluster::NodePlan& node,
                                     const cluster::RankAssignment& rank) override {
    protocol::SpawnWorker spawn;
    spawn.worker = static_cast<uint32_t>(rank.global_rank);
    spawn.attempt = static_cast<uint32_t>(attempt.number);
    spawn.env = {"NODE_RANK=" + std::to_string(node.node_rank), "MASTER_ADDR=" + attempt.master_addr,
                 "MASTER_PORT=" + std::to_string(attempt.master_port)};
    return spawn;
  }
  Fault judge(const Attempt&) override { return fault; }
  void attempt_started(const Attempt& attempt) override { started.push_back(attempt.number); }
  void rank_ended(const Attempt&, int) override {}
  void attempt_ended(const Attempt& attempt) override { ended.push_back(attempt.number); }
  void take_stacks() override { ++stack_rounds; }
  void running() override { ++running_calls; }

  std::string all_notices() const {
    std::string text;
    for (const auto& n : notices) text += n + "\n";
    return text;
  }

  Fault fault;
  std::vector<std::string> notices;
  std::vector<int> started, ended;
  int stack_rounds = 0;
  int running_calls = 0;
};

// `nodes` hosts node1..nodeN with `slots` ranks each.
cluster::RankPlan plan_of(int nodes, int slots) {
  std::vector<cluster::NodeSlots> hosts;
  for (int i = 1; i <= nodes; ++i) {
    std::vector<int> devices;
    for (int s = 0; s < slots; ++s) devices.push_back(s);
    hosts.push_back({cluster::Host{.name = "node" + std::to_string(i)}, devices});
  }
  return cluster::make_rank_plan(hosts);
}

struct Job {
  explicit Job(JobSpec job_spec, size_t nodes) : agents(nodes), spec(std::move(job_spec)), machine(spec, agents, host) {}
  FakeAgents agents;
  FakeHost host;
  JobSpec spec;
  JobMachine machine;
  int64_t now = 1000;

  void start(int port = 29500) { machine.start(std::vector<bool>(agents.alive_.size(), true), port, now); }
  // Every rank spawned so far says it started.
  std::vector<std::pair<size_t, protocol::SpawnWorker>> start_ranks() {
    auto spawns = agents.take<protocol::SpawnWorker>();
    for (auto& [node, spawn] : spawns) machine.on_message(node, protocol::WorkerStarted{spawn.worker, 100 + spawn.worker}, now);
    return spawns;
  }
  void exited(size_t node, uint32_t rank, int code) {
    machine.on_message(node, protocol::WorkerExited{rank, protocol::ExitHow::exited, code, "exit " + std::to_string(code)}, now);
  }
  void signaled(size_t node, uint32_t rank, int signal) {
    machine.on_message(node, protocol::WorkerExited{rank, protocol::ExitHow::signaled, signal, "killed"}, now);
  }
  // Every node that was told to Terminate ends its ranks by SIGTERM and says the attempt is cleared.
  void clear_terminated(const std::vector<std::pair<size_t, protocol::SpawnWorker>>& spawns,
                        std::set<uint32_t> already_ended = {}) {
    auto terminates = agents.take<protocol::Terminate>();
    for (auto& [node, terminate] : terminates) {
      for (auto& [spawn_node, spawn] : spawns) {
        if (spawn_node == node && !already_ended.count(spawn.worker)) signaled(node, spawn.worker, SIGTERM);
      }
      machine.on_message(node, protocol::AttemptCleared{terminate.attempt}, now);
    }
  }
  void answer_preflight() {
    for (auto& [node, pick] : agents.take<protocol::PickPort>()) {
      machine.on_message(node, protocol::PortReply{pick.request, static_cast<uint32_t>(30000 + node), ""}, now);
    }
  }
};

JobSpec spec_of(int nodes, int slots) {
  JobSpec spec;
  spec.plan = plan_of(nodes, slots);
  spec.grace_ms = 5000;
  return spec;
}

TEST(JobMachine, AHealthyJobRunsOnceAndEndsZero) {
  Job job(spec_of(2, 2), 2);
  job.start();
  auto spawns = job.start_ranks();
  ASSERT_EQ(spawns.size(), 4u);
  EXPECT_EQ(job.host.running_calls, 1);
  EXPECT_EQ(spawns[0].second.env[2], "MASTER_PORT=29500");  // the first attempt takes node 0's Hello port
  for (auto& [node, spawn] : spawns) job.exited(node, spawn.worker, 0);
  EXPECT_TRUE(job.machine.done());
  EXPECT_EQ(job.machine.exit_code(), 0);
  EXPECT_TRUE(job.agents.take<protocol::Terminate>().empty());
}

TEST(JobMachine, AWorkerFailureStopsEveryRankAndIsTheExitCode) {
  Job job(spec_of(2, 2), 2);
  job.start();
  auto spawns = job.start_ranks();
  job.exited(1, 3, 7);  // rank 3 on node2
  auto terminates = job.agents.take<protocol::Terminate>();
  ASSERT_EQ(terminates.size(), 2u);
  EXPECT_EQ(terminates[0].second.attempt, 0u);
  EXPECT_EQ(terminates[0].second.grace_ms, 5000u);
  EXPECT_FALSE(job.machine.done());
  for (uint32_t rank : {0u, 1u, 2u}) job.signaled(rank < 2 ? 0 : 1, rank, SIGTERM);
  EXPECT_FALSE(job.machine.done());  // waits for the nodes to say their process groups are gone
  job.machine.on_message(0, protocol::AttemptCleared{0}, job.now);
  job.machine.on_message(1, protocol::AttemptCleared{0}, job.now);
  EXPECT_TRUE(job.machine.done());
  EXPECT_EQ(job.machine.exit_code(), 7);
  EXPECT_THAT(job.host.all_notices(), HasSubstr("rank 3 on node2 failed (exit 7); stopping all ranks"));
}

TEST(JobMachine, ALostNodeIsTheRootCauseAndItsPeersStop) {
  Job job(spec_of(3, 1), 3);
  job.start();
  auto spawns = job.start_ranks();
  job.agents.alive_[2] = false;
  job.machine.on_node_lost(2, "no heartbeat for 5005 ms", false, job.now);
  auto terminates = job.agents.take<protocol::Terminate>();
  ASSERT_EQ(terminates.size(), 2u);  // the live nodes only
  job.signaled(0, 0, SIGTERM);
  job.signaled(1, 1, SIGTERM);
  job.machine.on_message(0, protocol::AttemptCleared{0}, job.now);
  job.machine.on_message(1, protocol::AttemptCleared{0}, job.now);
  EXPECT_TRUE(job.machine.done());
  EXPECT_EQ(job.machine.exit_code(), 1);
  EXPECT_EQ(job.machine.current()->gang->status(2).phase, RankPhase::lost);
  ASSERT_TRUE(job.machine.current()->fault);
  EXPECT_EQ(job.machine.current()->fault->kind, Fault::Kind::node);
  ASSERT_TRUE(job.machine.roster().exclusion(2));  // excluded for the job, though no restart was asked for
}

TEST(JobMachine, CtrlCTwiceSignalsThenKillsAndNeverRestarts) {
  JobSpec spec = spec_of(2, 1);
  spec.restart.max_restarts = 3;
  Job job(spec, 2);
  job.start();
  auto spawns = job.start_ranks();
  job.machine.on_signal(SIGINT, job.now);
  auto signals = job.agents.take<protocol::Signal>();
  ASSERT_EQ(signals.size(), 2u);
  EXPECT_EQ(signals[0].second.signal, SIGINT);
  EXPECT_GT(job.machine.next_deadline(job.now), job.now);
  job.machine.on_signal(SIGINT, job.now + 10);
  signals = job.agents.take<protocol::Signal>();
  ASSERT_EQ(signals.size(), 2u);
  EXPECT_EQ(signals[0].second.signal, SIGKILL);
  job.signaled(0, 0, SIGKILL);
  job.signaled(1, 1, SIGKILL);
  EXPECT_TRUE(job.machine.done());  // an interrupted attempt does not wait for AttemptCleared
  EXPECT_EQ(job.machine.exit_code(), 128 + SIGINT);
  EXPECT_TRUE(job.agents.take<protocol::SpawnWorker>().empty());
  EXPECT_THAT(job.host.all_notices(), HasSubstr("again to kill them at once"));
}

TEST(JobMachine, CtrlCOnceKillsAfterTheGrace) {
  Job job(spec_of(1, 2), 1);
  job.start();
  job.start_ranks();
  job.machine.on_signal(SIGTERM, job.now);
  EXPECT_EQ(job.agents.take<protocol::Signal>().at(0).second.signal, SIGTERM);
  job.machine.tick(job.now + 4999);
  EXPECT_TRUE(job.agents.take<protocol::Signal>().empty());
  job.machine.tick(job.now + 5000);
  EXPECT_EQ(job.agents.take<protocol::Signal>().at(0).second.signal, SIGKILL);
}

TEST(JobMachine, AStallTakesStacksThenStopsTheJob) {
  JobSpec spec = spec_of(2, 1);
  spec.hang_timeout_ms = 10'000;
  Job job(spec, 2);
  job.start();
  auto spawns = job.start_ranks();
  job.machine.on_progress(job.now + 5000);
  job.machine.tick(job.now + 14'000);
  EXPECT_EQ(job.host.stack_rounds, 0);  // progress 9 s ago
  job.machine.tick(job.now + 15'000);
  EXPECT_EQ(job.host.stack_rounds, 1);
  job.machine.tick(job.now + 16'000);
  EXPECT_EQ(job.host.stack_rounds, 1);  // one round at a time
  job.machine.on_stacks_taken(job.now + 17'000);
  job.clear_terminated(spawns);
  EXPECT_TRUE(job.machine.done());
  EXPECT_EQ(job.machine.exit_code(), 124);
  EXPECT_THAT(job.host.all_notices(), HasSubstr("the job stalled"));
}

TEST(JobMachine, AStallWithDumpOnlyLetsTheJobRun) {
  JobSpec spec = spec_of(1, 1);
  spec.hang_timeout_ms = 10'000;
  spec.kill_on_hang = false;
  Job job(spec, 1);
  job.start();
  job.start_ranks();
  job.machine.tick(job.now + 10'000);
  job.machine.on_stacks_taken(job.now + 10'500);
  EXPECT_TRUE(job.agents.take<protocol::Terminate>().empty());
  job.machine.tick(job.now + 19'000);
  EXPECT_EQ(job.host.stack_rounds, 1);
  job.machine.tick(job.now + 20'500);
  EXPECT_EQ(job.host.stack_rounds, 2);
}

// The reproduction, in the machine: the next attempt starts only once every node said AttemptCleared,
// and its Terminate (and kill deadline) names its own attempt.
TEST(JobMachine, ARestartWaitsForTheOldAttemptToClearEverywhere) {
  JobSpec spec = spec_of(2, 1);
  spec.restart.max_restarts = 1;
  Job job(spec, 2);
  job.start();
  auto spawns = job.start_ranks();
  job.exited(0, 0, 1);
  job.signaled(1, 1, SIGTERM);
  auto terminates = job.agents.take<protocol::Terminate>();
  ASSERT_EQ(terminates.size(), 2u);
  job.machine.on_message(1, protocol::AttemptCleared{0}, job.now);
  EXPECT_TRUE(job.agents.take<protocol::PickPort>().empty());  // node1 has not cleared attempt 0 yet
  job.machine.on_message(0, protocol::AttemptCleared{7}, job.now);  // another attempt's: ignored
  EXPECT_TRUE(job.agents.take<protocol::PickPort>().empty());
  job.machine.on_message(0, protocol::AttemptCleared{0}, job.now);
  EXPECT_EQ(job.host.ended, std::vector<int>{0});
  job.answer_preflight();  // attempt 1 asks every node, and node 0's port is the new MASTER_PORT
  auto second = job.start_ranks();
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].second.attempt, 1u);
  EXPECT_EQ(second[0].second.env[2], "MASTER_PORT=30000");
  for (auto& [node, spawn] : second) job.exited(node, spawn.worker, 0);
  EXPECT_TRUE(job.machine.done());
  EXPECT_EQ(job.machine.exit_code(), 0);
  EXPECT_EQ(job.machine.attempts().size(), 2u);
}

TEST(JobMachine, ANodeThatNeverClearsIsLeftOutAfterGraceAndSlack) {
  JobSpec spec = spec_of(3, 1);
  spec.max_nodes = 2;
  spec.restart.max_restarts = 1;
  Job job(spec, 3);
  job.start();
  auto spawns = job.start_ranks();
  job.exited(0, 0, 1);
  job.signaled(1, 1, SIGTERM);
  job.agents.take<protocol::Terminate>();
  job.machine.on_message(0, protocol::AttemptCleared{0}, job.now);
  job.machine.tick(job.now + 5000 + 15'000 - 1);
  EXPECT_TRUE(job.agents.take<protocol::PickPort>().empty());
  job.machine.tick(job.now + 5000 + 15'000);
  auto picks = job.agents.take<protocol::PickPort>();
  ASSERT_EQ(picks.size(), 2u);  // node1 and the spare node3: node2 is excluded
  EXPECT_EQ(picks[1].first, 2u);
  EXPECT_TRUE(job.machine.roster().exclusion(1));
}

TEST(JobMachine, ALostNodeIsExcludedAndASpareTakesItsPlace) {
  JobSpec spec = spec_of(5, 2);
  spec.max_nodes = 4;
  spec.min_nodes = 3;
  spec.restart.max_restarts = 3;
  Job job(spec, 5);
  job.start();
  auto spawns = job.start_ranks();
  EXPECT_EQ(spawns.size(), 8u);
  EXPECT_EQ(spawns.back().first, 3u);  // node1-4 run; node5 is the spare
  job.agents.alive_[2] = false;
  job.machine.on_node_lost(2, "no heartbeat for 5005 ms", false, job.now);
  job.clear_terminated(spawns, {4, 5});
  job.answer_preflight();
  auto second = job.start_ranks();
  ASSERT_EQ(second.size(), 8u);
  std::set<size_t> nodes;
  for (auto& [node, spawn] : second) nodes.insert(node);
  EXPECT_EQ(nodes, (std::set<size_t>{0, 1, 3, 4}));
  // Node ranks follow host order over the nodes used: node5 is node rank 3, node4 node rank 2.
  EXPECT_EQ(second[4].second.env[0], "NODE_RANK=2");
  EXPECT_EQ(second[7].second.env[0], "NODE_RANK=3");
  EXPECT_THAT(job.host.all_notices(),
              HasSubstr("node3 lost (no heartbeat for 5005 ms): excluded; attempt 2 of 4 on node[1-2,4-5] "
                        "(node5 from the spares)"));
}

// A machine dies: its peers' ranks fail first ("Connection reset by peer") and only then is the node seen lost.
// The lost node is at fault (excluded), not the peer that merely saw the reset.
TEST(JobMachine, APeerThatSawTheResetIsNeverAtFault) {
  JobSpec spec = spec_of(3, 1);
  spec.max_nodes = 2;
  spec.restart.max_restarts = 1;
  Job job(spec, 3);
  job.host.fault = Fault{Fault::Kind::unknown, "gloo: Connection reset by peer (rank 0 on node1)", {}, ""};
  job.start();
  auto spawns = job.start_ranks();
  job.exited(0, 0, 1);  // node1's rank: connection reset by node2
  job.agents.alive_[1] = false;
  job.machine.on_node_lost(1, "the agent's connection closed", false, job.now);
  job.clear_terminated(spawns, {0, 1});
  job.answer_preflight();
  auto second = job.start_ranks();
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].first, 0u);
  EXPECT_EQ(second[1].first, 2u);
  EXPECT_TRUE(job.machine.roster().exclusion(1));
  EXPECT_FALSE(job.machine.roster().exclusion(0));
  EXPECT_THAT(job.host.all_notices(), HasSubstr("node2 lost (the agent's connection closed): excluded"));
}

TEST(JobMachine, MasterAddrMovesWhenNodeZeroIsExcluded) {
  JobSpec spec = spec_of(3, 1);
  spec.max_nodes = 2;
  spec.restart.max_restarts = 1;
  Job job(spec, 3);
  job.start();
  auto spawns = job.start_ranks();
  EXPECT_EQ(spawns[0].second.env[1], "MASTER_ADDR=10.0.0.1");
  job.agents.alive_[0] = false;
  job.machine.on_node_lost(0, "connection closed", false, job.now);
  job.clear_terminated(spawns, {0});
  job.answer_preflight();
  auto second = job.start_ranks();
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].first, 1u);
  EXPECT_EQ(second[0].second.env[1], "MASTER_ADDR=10.0.0.2");
  EXPECT_EQ(second[0].second.env[2], "MASTER_PORT=30001");
}

TEST(JobMachine, ANodeLostWithItsCarrierIsReconnectedNotExcluded) {
  JobSpec spec = spec_of(3, 1);
  spec.restart.max_restarts = 1;
  spec.min_nodes = 2;
  spec.max_nodes = 3;
  Job job(spec, 3);
  job.start();
  auto spawns = job.start_ranks();
  job.agents.alive_[1] = job.agents.alive_[2] = false;
  job.machine.on_node_lost(1, "connection closed; node3 lost with it", false, job.now);
  job.machine.on_node_lost(2, "lost with node2, which carried it", true, job.now);
  EXPECT_TRUE(job.agents.reconnected.empty());  // only once a restart is decided
  job.clear_terminated(spawns, {1, 2});
  EXPECT_EQ(job.agents.reconnected, std::vector<size_t>{2});
  EXPECT_TRUE(job.agents.take<protocol::PickPort>().empty());  // waits for node3 to come back
  job.agents.alive_[2] = true;
  job.machine.on_node_ready(2, job.now + 500);
  job.answer_preflight();
  auto second = job.start_ranks();
  std::set<size_t> nodes;
  for (auto& [node, spawn] : second) nodes.insert(node);
  EXPECT_EQ(nodes, (std::set<size_t>{0, 2}));
  EXPECT_TRUE(job.machine.roster().exclusion(1));
  EXPECT_FALSE(job.machine.roster().exclusion(2));
}

TEST(JobMachine, AWorkloadFailureIsNotRestartedByDefault) {
  JobSpec spec = spec_of(2, 1);
  spec.restart.max_restarts = 3;
  Job job(spec, 2);
  job.host.fault = Fault{Fault::Kind::workload, "the same exception on every rank (ValueError: bad config)", {}, ""};
  job.start();
  auto spawns = job.start_ranks();
  job.exited(0, 0, 1);
  job.exited(1, 1, 1);
  job.clear_terminated(spawns, {0, 1});
  EXPECT_TRUE(job.machine.done());
  EXPECT_EQ(job.machine.exit_code(), 1);
  EXPECT_THAT(job.host.all_notices(), HasSubstr("ValueError: bad config"));
  EXPECT_THAT(job.host.all_notices(), HasSubstr("--restart-on any"));
}

TEST(JobMachine, RestartOnAnyRetriesAWorkloadFailure) {
  JobSpec spec = spec_of(1, 1);
  spec.restart.max_restarts = 1;
  spec.restart.restart_on = RestartOn::any;
  Job job(spec, 1);
  job.host.fault = Fault{Fault::Kind::workload, "same exception", {}, ""};
  job.start();
  auto spawns = job.start_ranks();
  job.exited(0, 0, 1);
  job.clear_terminated(spawns, {0});
  job.answer_preflight();
  EXPECT_EQ(job.start_ranks().size(), 1u);
}

TEST(JobMachine, NoRestartExitCodesStopTheJob) {
  JobSpec spec = spec_of(1, 1);
  spec.restart.max_restarts = 2;
  spec.restart.no_restart_exit_codes = {42};
  Job job(spec, 1);
  job.start();
  auto spawns = job.start_ranks();
  job.exited(0, 0, 42);
  job.clear_terminated(spawns, {0});
  EXPECT_TRUE(job.machine.done());
  EXPECT_EQ(job.machine.exit_code(), 42);
  EXPECT_THAT(job.host.all_notices(), HasSubstr("exit code 42 is in --no-restart-exit-codes"));
}

TEST(JobMachine, TheThrashGuardStopsRepeatedFailures) {
  JobSpec spec = spec_of(1, 1);
  spec.restart.max_restarts = 10;
  spec.restart.thrash_failures = 3;
  spec.restart.thrash_window_ms = 60'000;
  Job job(spec, 1);
  job.start();
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) job.answer_preflight();
    auto spawns = job.start_ranks();
    ASSERT_EQ(spawns.size(), 1u) << "attempt " << attempt;
    job.now += 1000;
    job.exited(0, 0, 1);
    job.clear_terminated(spawns, {0});
  }
  EXPECT_TRUE(job.machine.done());
  EXPECT_THAT(job.host.all_notices(), HasSubstr("3 failures within 60 s"));
  EXPECT_EQ(job.machine.attempts().size(), 3u);
}

TEST(JobMachine, FewerThanMinNodesStopsWithAClearReason) {
  JobSpec spec = spec_of(3, 1);
  spec.min_nodes = 3;
  spec.restart.max_restarts = 5;
  Job job(spec, 3);
  job.start();
  auto spawns = job.start_ranks();
  job.agents.alive_[1] = false;
  job.machine.on_node_lost(1, "connection closed", false, job.now);
  job.clear_terminated(spawns, {1});
  EXPECT_TRUE(job.machine.done());
  EXPECT_THAT(job.machine.stop_reason(), HasSubstr("2 usable nodes left, the job needs 3"));
  EXPECT_THAT(job.machine.stop_reason(), HasSubstr("node2: lost (connection closed)"));
  EXPECT_FALSE(job.machine.stop_error());  // an attempt ran: the exit code is its own
  EXPECT_EQ(job.machine.exit_code(), 1);
}

TEST(JobMachine, ADeadSpareIsSkippedByThePreflight) {
  JobSpec spec = spec_of(4, 1);
  spec.max_nodes = 2;
  spec.restart.max_restarts = 2;
  spec.preflight_ms = 3000;
  Job job(spec, 4);
  job.start();
  auto spawns = job.start_ranks();
  job.agents.alive_[1] = false;
  job.machine.on_node_lost(1, "connection closed", false, job.now);
  job.clear_terminated(spawns, {1});
  auto picks = job.agents.take<protocol::PickPort>();  // node1 and node3; node3 does not answer
  ASSERT_EQ(picks.size(), 2u);
  job.machine.on_message(0, protocol::PortReply{picks[0].second.request, 31000, ""}, job.now);
  job.machine.tick(job.now + 3000);
  EXPECT_TRUE(job.machine.roster().exclusion(2));
  picks = job.agents.take<protocol::PickPort>();  // node1 and node4 now
  ASSERT_EQ(picks.size(), 2u);
  EXPECT_EQ(picks[1].first, 3u);
}

TEST(JobMachine, SignalsToForwardReachEveryRankAndTheJobGoesOn) {
  JobSpec spec = spec_of(2, 2);
  spec.forward_signals = {SIGUSR1};
  Job job(spec, 2);
  job.start();
  auto spawns = job.start_ranks();
  job.machine.on_signal(SIGUSR1, job.now);
  auto signals = job.agents.take<protocol::Signal>();
  ASSERT_EQ(signals.size(), 2u);
  EXPECT_EQ(signals[0].second.signal, SIGUSR1);
  EXPECT_EQ(signals[0].second.worker, protocol::kAllWorkers);
  EXPECT_EQ(job.machine.interrupts(), 0);
  for (auto& [node, spawn] : spawns) job.exited(node, spawn.worker, 0);
  EXPECT_EQ(job.machine.exit_code(), 0);
}

TEST(JobMachine, AnExcludedNodeComesBackAfterItsCooldown) {
  JobSpec spec = spec_of(2, 1);
  spec.max_nodes = 1;
  spec.cooldown_ms = 60'000;
  spec.restart.max_restarts = 5;
  Job job(spec, 2);
  job.start();
  auto spawns = job.start_ranks();
  job.agents.alive_[0] = false;
  job.machine.on_node_lost(0, "connection closed", false, job.now);
  job.clear_terminated(spawns, {0});
  job.answer_preflight();
  job.start_ranks();
  job.machine.tick(job.now + 59'000);
  EXPECT_TRUE(job.agents.reconnected.empty());
  job.machine.tick(job.now + 60'000);
  EXPECT_EQ(job.agents.reconnected, std::vector<size_t>{0});
  job.machine.on_node_ready(0, job.now + 61'000);
  EXPECT_TRUE(job.machine.roster().usable(0));
}

}  // namespace
}  // namespace muster::launch
