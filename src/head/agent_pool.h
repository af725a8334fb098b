// The head's set of agents, one per node: starts them through a transport (bounded parallelism), waits until
// every one is ready (preamble, upload, Hello), then keeps them alive (heartbeats both ways) and hands every
// decoded message to the owner. Used by launch, doctor, setup and sync: each owns one pool and runs its loop
// through poll(), the only place the head waits.
//
// With a `fanout` (relay_tree.h) the head starts the agents of a few nodes only and each of those starts the
// agents below it (docs/agent-protocol.md section 9): messages to a node further down travel as a Relay through
// its ancestors, its messages come back as Relayed, and a parent that loses a child says NodeLost. The owner sees
// the same pool either way: node indices, messages, losses. A node whose parent cannot start it (nodes that
// cannot ssh to each other) is started by the head itself instead (and still starts the nodes below it), and
// notes() says why.
//
// A node is *lost* when its connection closes or it stays silent past the heartbeat timeout — or, further down
// the tree, when its parent says so or is lost itself: a lost node takes every node below it along, each told to
// the owner once. The pool never decides what a loss means for a job: that is the owner's rule (launch: the gang
// fails).
// The pool waits in the process's one EventLoop (owned by the command): its links register there (one
// connection::SupervisedSession per node it starts itself), and so do the owner's own descriptors (a launch's
// terminal and control socket), which every wait of the pool serves too — in connect(), poll() and shutdown().
// The owner keeps a posix::SignalBlock alive around the pool: signals are reported by poll() and connect().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "connection/supervised_session.h"
#include "head/relay_tree.h"
#include "posix/event_loop.h"
#include "protocol/messages.h"
#include "transport/transport.h"
#include "util/result.h"

namespace muster::head {

// The fanout of the launch tree unless the user gives one (Slurm's TreeWidth is 50): up to this many nodes the
// head connects to every node itself.
inline constexpr size_t kDefaultFanout = 32;

struct PoolOptions {
  transport::TransportKind transport = transport::TransportKind::ssh;
  transport::SshOptions ssh;
  int heartbeat_ms = 1000;
  int heartbeat_timeout_ms = 5000;
  int max_parallel_connects = 64;
  // The most agents the head (and each agent) starts itself; 0: the head starts every agent (the star). Applies
  // to the ssh and local transports (Slurm's srun already spreads its own launch).
  size_t fanout = 0;
  // Local transport only: every node is a "virtual node", an agent on this machine that calls itself by the
  // node's name (tests and benches of many nodes on one machine).
  bool virtual_nodes = false;
  // A node a relay cannot start is started by the head (notes() says so); false: connect() fails instead.
  bool fall_back_to_star = true;
  // A node that cannot be started is lost (unreachable() says why) and connect() goes on without it, failing only
  // when fewer than `required_nodes` are ready; false: the first such node is connect()'s error. Spares (launch
  // --nnodes) and `muster exec` (which names the nodes it could not reach) tolerate them.
  bool tolerate_unreachable = false;
  size_t required_nodes = 0;
};

struct PoolNode {
  std::string name;         // as the user wrote it; used in every message
  std::string destination;  // what the transport connects to ("user@host")
  std::vector<std::string> agent_args = {};  // more `muster agent` arguments (launch: --container-spec); a pool
                                             // whose nodes have any is a star (an agent in a container has no ssh)
};

class PoolListener {
 public:
  virtual ~PoolListener() = default;
  virtual void on_message(size_t node, const protocol::AgentMessage& message) = 0;
  // Once per node (again after a reconnect()). `diagnostics` is what the agent and ssh wrote on stderr, for the
  // user. `carried`: lost only because the node that started its agent (the launch tree) was.
  virtual void on_lost(size_t node, const std::string& why, const std::string& diagnostics, bool carried) = 0;
  // A node reconnect() brought back is ready (hello() has its new Hello).
  virtual void on_ready(size_t node) { (void)node; }
};

class AgentPool {
 public:
  static Result<std::unique_ptr<AgentPool>> create(std::vector<PoolNode> nodes, PoolOptions options,
                                                   posix::EventLoop& loop);
  // A pool with a loop of its own, for a command that waits on nothing else (doctor, sync, setup, image).
  static Result<std::unique_ptr<AgentPool>> create(std::vector<PoolNode> nodes, PoolOptions options);
  ~AgentPool();
  AgentPool(const AgentPool&) = delete;
  AgentPool& operator=(const AgentPool&) = delete;

  // Starts every agent and waits until all are ready. Fails with ErrorKind::unreachable naming the first node
  // that could not be reached (within the connect timeout, +0.5 s for ssh to say why), or
  // ErrorKind::interrupted on SIGINT/SIGTERM/SIGHUP. The loop serves the owner's registrations meanwhile.
  Result<void> connect();

  // One round of the loop: waits up to `timeout_ms` (less when a timer is due), services the agents and the
  // owner's registrations, sends heartbeats, detects lost nodes; messages and losses go to `listener`. Returns
  // the signals that arrived (SIGCHLD left out).
  Result<std::vector<int>> poll(int timeout_ms, PoolListener& listener);
  posix::EventLoop& loop() { return loop_; }

  void send(size_t node, const protocol::HeadMessage& message);
  void send_frame(size_t node, std::string_view frame);  // an encoded message (protocol::encode)
  // The same, written by the next poll() (batches many small frames into few writes).
  void queue_frame(size_t node, std::string_view frame);
  // One encoded frame for several nodes, queued: through the tree it leaves the head once per connection and
  // crosses each link once (a sync's file data). Returns the number of the head's connections it went out on.
  size_t queue_frame_to(const std::vector<size_t>& nodes, std::string_view frame);
  void broadcast(const protocol::HeadMessage& message);
  // One message to each of `nodes` (those alive), written now as far as the pipes take it.
  void send_to(const std::vector<size_t>& nodes, const protocol::HeadMessage& message);
  // Starts a lost node's agent again, from the head itself (a node of the launch tree whose carrier was lost is
  // thus re-parented to the head): on_ready() or on_lost() follows.
  void reconnect(size_t node);

  // Sends Shutdown to every live agent and waits up to `wait_ms` for their transports to exit; kills the rest.
  void shutdown(int wait_ms);

  size_t size() const { return slots_.size(); }
  const std::string& name(size_t node) const { return nodes_[node].name; }
  const std::string& destination(size_t node) const { return nodes_[node].destination; }
  const protocol::Hello& hello(size_t node) const;
  bool alive(size_t node) const;
  const char* transport_name() const { return transport_->name(); }
  // How many connections the head holds (the star: one per node; a tree: `fanout` or a few more).
  size_t connections() const;
  // The depth of the tree as connected (1: the star).
  size_t depth() const;
  // The launch tree as planned (before any node a relay could not start is reached directly instead): who
  // starts which agent (launch/fd_budget.h counts descriptors from it).
  const RelayTree& tree() const { return tree_; }
  // Who carries `node` as connected: RelayTree::kHead for a node the head connects to itself, else the node whose
  // agent started it; and the node the head connects to that carries it (itself when the head connects to it).
  size_t parent_of(size_t node) const { return slots_[node].parent; }
  size_t root_of(size_t node) const;
  // What the user should know about how the pool connected (a relay that could not start a node).
  const std::vector<std::string>& notes() const { return notes_; }
  // Why the node could not be started while connecting (tolerate_unreachable); empty for the others.
  const std::string& unreachable(size_t node) const { return slots_[node].unreachable; }

 private:
  struct Slot {
    std::unique_ptr<connection::SupervisedSession> link;  // nodes the head starts itself
    size_t parent = RelayTree::kHead;  // who starts this node's agent (the tree, or kHead once reached directly)
    bool relay_opened = false;         // its subtree was handed to its agent
    int64_t relay_deadline_ms = 0;     // started by a relay: say Hello by then
    bool ready = false;                // Hello arrived (directly, or through the tree)
    protocol::Hello hello;
    bool lost = false;
    std::string unreachable;  // why it could not be started while connecting
  };
  AgentPool(std::vector<PoolNode> nodes, PoolOptions options, std::unique_ptr<posix::EventLoop> owned,
            posix::EventLoop& loop, transport::SelfBinary binary, std::unique_ptr<transport::Transport> transport);
  bool direct(size_t node) const { return slots_[node].parent == RelayTree::kHead; }
  // The nodes below `node` that are reached through it (not those the head reached directly after a failure).
  std::vector<size_t> carried_by(size_t node) const;
  Result<void> start_more_agents();
  Result<void> start_link(size_t node);
  void tell_lost(size_t node, const std::string& why, const std::string& details, bool carried);
  void check_relay_deadlines(int64_t now);
  transport::AgentTarget target(size_t node) const;
  void open_relays(int64_t now);
  void reach_directly(size_t node, const std::string& why);
  void on_link_failed(size_t node, const std::string& why);
  void on_session_message(size_t node, protocol::AgentMessage message);
  void lose(size_t node, const std::string& why, const std::string& details);
  Result<std::vector<int>> wait_round(int timeout_ms);
  void queue_to_root(size_t root, const std::vector<size_t>& nodes, std::string_view frame);

  std::unique_ptr<posix::EventLoop> owned_loop_;  // first: every registration below leaves it before it goes
  std::vector<PoolNode> nodes_;
  PoolOptions options_;
  posix::EventLoop& loop_;
  transport::SelfBinary binary_;
  std::unique_ptr<transport::Transport> transport_;
  std::string nonce_;
  RelayTree tree_;
  std::vector<Slot> slots_;
  std::vector<size_t> to_start_;  // nodes the head starts itself, in order
  size_t started_ = 0;            // of to_start_
  bool connected_ = false;
  std::optional<Error> connect_error_;  // the first node the head could not start while connecting
  std::string relay_failure_;           // fall_back_to_star off: why a relay could not start a node
  std::vector<std::string> notes_;
  PoolListener* listener_ = nullptr;    // poll()'s; nullptr: messages are dropped (connect, shutdown)
  // Losses and readiness found while no listener was there (a timer between polls): told at the next poll.
  struct Pending {
    size_t node;
    bool lost;
    std::string why, details;
    bool carried;
  };
  std::vector<Pending> pending_;
};

}  // namespace muster::head
