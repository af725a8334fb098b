// The agent's half of a relay tree (docs/agent-protocol.md section 9): on RelayOpen the agent starts an agent on
// each of its children itself — over ssh from this node (the node-to-node ssh `muster setup ssh` gives), or on
// this machine for virtual nodes — and becomes that agent's head: it answers its binary upload with its own
// executable, sends it heartbeats, passes it the part of the tree below it, forwards Relay frames for its subtree
// down and passes whatever comes up to its own head: the child's own messages as Relayed{child's index}, those of
// nodes further down as they are. Data for many nodes thus leaves the real head once and crosses each link once
// (`muster sync` on a chain), and the head holds a connection to a few nodes only (`muster launch --fanout`).
//
// Driven by the agent's loop: it registers the child's fds with the agent's Poller under the tokens it is
// given, and the loop calls on_event()/on_timer(). What comes up is returned as frames for the head.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "connection/agent_session.h"
#include "posix/poller.h"
#include "protocol/messages.h"
#include "transport/transport.h"

namespace muster::agent {

class RelayChild {
 public:
  struct Tokens {
    uint64_t out, err, in;
  };
  // Starts the agent of entry `child` of `open` (one whose parent is open.self). An error (for a NodeLost
  // upward) if it cannot start.
  static Result<std::unique_ptr<RelayChild>> start(const protocol::RelayOpen& open, size_t child,
                                                   posix::Poller& poller, Tokens tokens, int heartbeat_ms,
                                                   int heartbeat_timeout_ms);
  ~RelayChild();

  uint32_t index() const { return index_; }
  // The child's index and every index below it: a Relay frame is forwarded when it names any of them.
  const std::vector<uint32_t>& subtree() const { return subtree_; }

  // A poller event on one of the child's fds; `token` is one of Tokens.
  void on_event(uint64_t token);
  // Heartbeats to the child, connect and silence timeouts; call every loop round.
  void on_timer(int64_t now_ms);
  // Queues an encoded head message for the child, given in two parts (a header and the rest) that are sent as
  // one frame; flush() writes what is queued (once per loop round, so small frames share a write).
  void send_frame(std::string_view head, std::string_view rest);
  void flush();
  // Stops (or resumes) reading from the child while this agent cannot send more to its own head.
  void pause(bool paused);
  // Frames for the head (Relayed, NodeLost; already encoded) since the last call.
  std::vector<std::string> take_upward();
  bool failed() const { return failed_; }
  // The child was told to shut down: its connection closing is its end, not a loss.
  void expect_end() { ending_ = true; }
  // Closed (lost, or ended after expect_end()): nothing more will come from it.
  bool done() const { return failed_ || ended_; }
  // The process group of the transport (the ssh client or the local agent), for the agent's guard.
  int transport_pgid() const;

 private:
  RelayChild(posix::Poller& poller, Tokens tokens, transport::SelfBinary binary, protocol::RelayOpen rest,
             uint32_t index, std::vector<uint32_t> subtree, int heartbeat_ms, int heartbeat_timeout_ms,
             int connect_timeout_s);
  void drain();
  bool restart();
  void fail(const std::string& why);
  void sync_registrations();

  posix::Poller& poller_;
  Tokens tokens_;
  transport::SelfBinary binary_;
  protocol::RelayOpen rest_;  // the tree below the child, passed on once it is ready
  uint32_t index_;
  std::vector<uint32_t> subtree_;
  std::unique_ptr<transport::Transport> transport_;
  transport::AgentTarget target_;
  std::string nonce_;
  std::unique_ptr<connection::AgentSession> session_;
  std::unique_ptr<connection::AgentSession> first_try_;  // a restarted child's first session, until reaped
  connection::SessionWatch watch_;
  bool ready_ = false, failed_ = false, ending_ = false, ended_ = false, restarted_ = false;
  int heartbeat_ms_, heartbeat_timeout_ms_, connect_timeout_s_;
  int64_t next_heartbeat_ms_ = 0;
  uint64_t heartbeat_seq_ = 0;
  std::vector<std::string> upward_;
};

// The part of `open` below entry `child`: every entry that descends from it, with `self` = its index.
protocol::RelayOpen subtree_open(const protocol::RelayOpen& open, size_t child);

}  // namespace muster::agent
