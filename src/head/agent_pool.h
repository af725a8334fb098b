// The head's set of agents, one per node: starts them through a transport (bounded parallelism), waits until
// every one is ready (preamble, upload, Hello), then keeps them alive (heartbeats both ways) and hands every
// decoded message to the owner. Used by launch, doctor and setup: each owns one pool and runs its loop
// through poll(), the only place the head waits.
//
// A node is *lost* when its connection closes or it stays silent past the heartbeat timeout; the pool then
// closes its session, sends its transport SIGTERM and tells the owner once. The pool never decides what a
// loss means for a job: that is the owner's rule (launch: the gang fails).
// The owner keeps a posix::SignalBlock alive around the pool: signals are reported by poll() and connect().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "connection/agent_session.h"
#include "posix/poller.h"
#include "protocol/messages.h"
#include "transport/transport.h"
#include "util/result.h"

namespace muster::head {

using transport::TransportKind;

struct PoolOptions {
  TransportKind transport = TransportKind::ssh;
  transport::SshOptions ssh;
  int heartbeat_ms = 1000;
  int heartbeat_timeout_ms = 5000;
  int max_parallel_connects = 64;
};

struct PoolNode {
  std::string name;         // as the user wrote it; used in every message
  std::string destination;  // what the transport connects to ("user@host")
  std::vector<std::string> agent_args = {};  // more `muster agent` arguments (launch: --container-spec)
};

class PoolListener {
 public:
  virtual ~PoolListener() = default;
  virtual void on_message(size_t node, const protocol::AgentMessage& message) = 0;
  // Once per node. `diagnostics` is what the agent and ssh wrote on stderr, for the user.
  virtual void on_lost(size_t node, const std::string& why, const std::string& diagnostics) = 0;
  // A fd the owner registered with watch_fd() is ready.
  virtual void on_watched_fd(uint64_t token, uint32_t events) {
    (void)token;
    (void)events;
  }
};

class AgentPool {
 public:
  static Result<std::unique_ptr<AgentPool>> create(std::vector<PoolNode> nodes, PoolOptions options);
  ~AgentPool();
  AgentPool(const AgentPool&) = delete;
  AgentPool& operator=(const AgentPool&) = delete;

  // Starts every agent and waits until all are ready. Fails with ErrorKind::unreachable naming the first node
  // that could not be reached (within the connect timeout, +0.5 s for ssh to say why), or
  // ErrorKind::interrupted on SIGINT/SIGTERM/SIGHUP. The owner's watched fds are served meanwhile through
  // `watched` (its on_watched_fd only; nullptr: the owner watches none yet).
  Result<void> connect(PoolListener* watched = nullptr);

  // One round of the loop: waits up to `timeout_ms` (less when a heartbeat is due), services the agents,
  // sends heartbeats, detects lost nodes. Returns the signals that arrived (SIGCHLD left out).
  Result<std::vector<int>> poll(int timeout_ms, PoolListener& listener);

  void send(size_t node, const protocol::HeadMessage& message);
  void send_frame(size_t node, std::string_view frame);  // an encoded message (protocol::encode)
  // The same, written by the next poll() (batches many small frames into few writes).
  void queue_frame(size_t node, std::string_view frame);
  void broadcast(const protocol::HeadMessage& message);

  // Sends Shutdown to every live agent and waits up to `wait_ms` for their transports to exit; kills the rest.
  // Watched fds are served meanwhile through `watched`, as in connect().
  void shutdown(int wait_ms, PoolListener* watched = nullptr);

  size_t size() const { return slots_.size(); }
  const std::string& name(size_t node) const { return nodes_[node].name; }
  const std::string& destination(size_t node) const { return nodes_[node].destination; }
  const protocol::Hello& hello(size_t node) const { return slots_[node].session->hello(); }
  bool alive(size_t node) const;
  const char* transport_name() const { return transport_->name(); }

  // Extra fds served by the same loop (the launcher's terminal). Tokens are the owner's; see on_watched_fd.
  Result<void> watch_fd(int fd, uint32_t events, uint64_t token);
  Result<void> unwatch_fd(int fd);
  Result<void> rewatch_fd(int fd, uint32_t events, uint64_t token);  // new events for a watched fd

 private:
  struct Slot {
    std::unique_ptr<connection::AgentSession> session;
    connection::SessionWatch watch;
    bool lost = false;
    bool restarted = false;  // restart_agent() was tried
    std::unique_ptr<connection::AgentSession> first_try;  // a restarted node's first session, until reaped
  };
  AgentPool(std::vector<PoolNode> nodes, PoolOptions options, posix::Poller poller, transport::SelfBinary binary,
            std::unique_ptr<transport::Transport> transport);
  Result<void> start_more_agents();
  Result<void> check_connections(int64_t now);
  bool restart_agent(size_t node, int64_t now);
  void service(size_t node, uint64_t kind, PoolListener* listener);
  void sync_registrations(size_t node);
  void lose(size_t node, const std::string& why, PoolListener* listener);
  void heartbeats(int64_t now, PoolListener& listener);
  Result<std::vector<int>> wait_round(int timeout_ms, PoolListener* listener);

  std::vector<PoolNode> nodes_;
  PoolOptions options_;
  posix::Poller poller_;
  transport::SelfBinary binary_;
  std::unique_ptr<transport::Transport> transport_;
  std::string nonce_;
  std::vector<Slot> slots_;
  size_t started_ = 0;
  int64_t next_heartbeat_ms_ = 0;
  uint64_t heartbeat_seq_ = 0;
};

}  // namespace muster::head
