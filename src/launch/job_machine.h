// JobMachine: every decision of a launch, as a pure type (DESIGN.md "Attempts, exclusion and spares"). The
// launcher feeds it events — the agents' messages, a lost node, a signal, a stop request, the clock — and it
// answers through two small interfaces: AgentLink (send to agents; the launcher's is the pool, a test's a fake)
// and JobHost (what is not a decision: the user's terminal, each worker's environment, the manifest, judging a
// failure with the diagnosis catalogue, taking stacks). It owns the attempts and their gangs.
//
// A job is a sequence of attempts over a changing set of nodes:
//   choose the nodes (NodeRoster: the first N usable in host order; spares fill the places of excluded nodes)
//   -> preflight (every chosen agent answers PickPort within preflight_ms; node 0's answer is MASTER_PORT; the
//      first attempt uses node 0's Hello port and skips it) -> spawn every rank -> run
//   -> the first failure anywhere (a rank, a lost node, a stall) is the root cause: Terminate{attempt} to the
//      attempt's nodes -> every rank ended AND every live node said AttemptCleared (its process groups are gone)
//   -> judge whose fault it was -> exclude a node at fault (reason, cooldown) -> RestartPolicy: restart (a new
//      attempt, same world size while enough nodes remain, no fewer than min) or stop with the reason.
// Ctrl-C (a signal) or `muster stop`: SIGINT to every rank, SIGKILL after the grace (a second one: at once); no
// restart. SIGUSR1/SIGUSR2 (forward_signals) go to every rank of the running attempt and the job goes on.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/rank_plan.h"
#include "launch/attempt.h"
#include "launch/node_roster.h"
#include "launch/restart_policy.h"
#include "launch/stall_watch.h"
#include "protocol/messages.h"
#include "util/result.h"

namespace muster::launch {

// The machine's hands on the agents.
class AgentLink {
 public:
  virtual ~AgentLink() = default;
  virtual bool alive(size_t node) const = 0;
  virtual void send(size_t node, const protocol::HeadMessage& message) = 0;
  virtual void broadcast(const std::vector<size_t>& nodes, const protocol::HeadMessage& message) = 0;
  // Start the node's agent again (its cooldown is over, or it was lost only with the node that carried it);
  // JobMachine::on_node_ready or on_node_lost follows.
  virtual void reconnect(size_t node) = 0;
};

// What the machine needs done that is not a decision.
class JobHost {
 public:
  virtual ~JobHost() = default;
  virtual void notice(const std::string& text) = 0;
  virtual std::string master_address(size_t node) = 0;
  virtual protocol::SpawnWorker spawn_worker(const Attempt& attempt, const cluster::NodePlan& node,
                                             const cluster::RankAssignment& rank) = 0;
  // Whose fault the attempt's root cause was, when it is not a lost node (the diagnosis catalogue, the ranks'
  // last lines).
  virtual Fault judge(const Attempt& attempt) = 0;
  virtual void attempt_started(const Attempt& attempt) = 0;
  virtual void rank_ended(const Attempt& attempt, int rank) = 0;
  virtual void attempt_ended(const Attempt& attempt) = 0;
  virtual void take_stacks() = 0;  // the stall detector fired; on_stacks_taken() when the round is over
  virtual void running() = 0;      // once: every rank of an attempt started while the job runs
};

struct JobSpec {
  cluster::RankPlan plan;  // every host of the job with its slots, in host order (per-node mode: one rank each)
  int min_nodes = 0;       // 0: all hosts
  int max_nodes = 0;       // 0: all hosts
  RestartRules restart;
  int grace_ms = 5000;
  int64_t cooldown_ms = 300'000;  // an excluded node may come back after this long
  int64_t preflight_ms = 10'000;  // a chosen node must answer within this before an attempt starts
  int64_t clear_slack_ms = 15'000;  // past grace + this, a node that has not cleared its ranks is left out
  int64_t hang_timeout_ms = 0;    // 0: no stall detection
  bool kill_on_hang = true;
  std::set<int> forward_signals;  // passed to every rank (SIGUSR1, SIGUSR2 by default)
};

class JobMachine {
 public:
  enum class Phase { waiting, preflight, running, done };

  JobMachine(JobSpec spec, AgentLink& agents, JobHost& host);

  // The pool is connected: `connected[i]` says whether host i's agent is up; `first_port` is node 0's free port
  // from its Hello (0: ask with a preflight).
  void start(const std::vector<bool>& connected, int first_port, int64_t now);
  void on_message(size_t node, const protocol::AgentMessage& message, int64_t now);
  // `carried`: lost only because the node that started its agent (launch tree) was; not its own fault.
  void on_node_lost(size_t node, const std::string& why, bool carried, int64_t now);
  void on_node_ready(size_t node, int64_t now);
  void on_signal(int signal, int64_t now);
  void on_stop(bool kill, int64_t now);  // `muster stop` (a second one, or kill: at once)
  void on_progress(int64_t now);
  void on_stacks_taken(int64_t now);
  void tick(int64_t now);
  int64_t next_deadline(int64_t now) const;

  Phase phase() const { return phase_; }
  bool done() const { return phase_ == Phase::done; }
  int exit_code() const;
  // Why the job never ran (no attempt started: too few nodes), as an error.
  const std::optional<Error>& stop_error() const { return stop_error_; }
  const std::string& stop_reason() const { return stop_reason_; }
  const Attempt* current() const { return attempts_.empty() ? nullptr : attempts_.back().get(); }
  const std::vector<std::unique_ptr<Attempt>>& attempts() const { return attempts_; }
  const NodeRoster& roster() const { return roster_; }
  const JobSpec& spec() const { return spec_; }
  int interrupts() const { return interrupts_; }
  int interrupt_signal() const { return interrupt_signal_; }
  bool stopped_by_request() const { return stop_requested_; }
  bool ranks_running() const;  // an attempt runs and is not tearing down
  const StallWatch& stall() const { return stall_; }

 private:
  void next_attempt(const std::string& reason, int64_t now);
  void begin_preflight(int64_t now);
  void on_port(size_t node, const protocol::PortReply& reply, int64_t now);
  void spawn(int64_t now);
  void on_started(size_t node, const protocol::WorkerStarted& started);
  void on_exited(size_t node, const protocol::WorkerExited& exited, int64_t now);
  void on_cleared(size_t node, const protocol::AttemptCleared& cleared, int64_t now);
  void begin_teardown(const std::string& reason, int64_t now);
  void interrupt(int signal, bool kill_now, int64_t now);
  void check_attempt_end(int64_t now);
  void end_attempt(int64_t now);
  Fault fault_of(const Attempt& attempt);
  void exclude(size_t node, const std::string& reason, int64_t now);
  void finish(const std::string& reason);
  bool owns_rank(const Attempt& attempt, size_t node, uint32_t rank) const;
  std::string describe_start(const Attempt& attempt) const;

  JobSpec spec_;
  AgentLink& agents_;
  JobHost& host_;
  NodeRoster roster_;
  RestartPolicy policy_;
  StallWatch stall_;
  Phase phase_ = Phase::waiting;
  std::vector<std::unique_ptr<Attempt>> attempts_;
  std::vector<bool> carried_;       // lost only with its carrier: reconnect, never exclude
  std::vector<std::string> lost_why_;  // why each node was last lost
  std::vector<bool> reconnecting_;  // AgentLink::reconnect asked, no answer yet
  int64_t reconnect_deadline_ms_ = 0;
  std::string pending_reason_;      // the next attempt's reason, while it waits for reconnects
  // Preflight of the attempt being prepared.
  uint32_t preflight_seq_ = 0;
  std::set<size_t> preflight_waiting_;
  int64_t preflight_deadline_ms_ = 0;
  int first_port_ = 0;
  std::optional<int64_t> kill_at_ms_;  // after Ctrl-C: SIGKILL then
  int interrupts_ = 0;
  int interrupt_signal_ = 0;
  bool stop_requested_ = false;
  bool stall_round_ = false;  // stacks are being taken for a stall
  bool announced_running_ = false;
  std::optional<Error> stop_error_;
  std::string stop_reason_;
};

}  // namespace muster::launch
