// The agent's half of a relay chain (docs/agent-protocol.md section 9): on RelayOpen the agent starts an agent
// on the next node itself, over ssh from this node (the node-to-node ssh `muster setup ssh` gives), and becomes
// that agent's head: it answers its binary upload with its own executable, sends it heartbeats, passes it the
// rest of the chain, forwards Relay frames down and wraps whatever comes up in Relayed{hop + 1}. Data for many
// nodes thus leaves the real head once and crosses each link once (`muster sync` on a chain).
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
  // Starts the agent on open.destinations[0]. Returns an error (for an AgentError upward) if it cannot start.
  static Result<std::unique_ptr<RelayChild>> start(const protocol::RelayOpen& open, posix::Poller& poller,
                                                   Tokens tokens, int heartbeat_ms, int heartbeat_timeout_ms);
  ~RelayChild();

  // A poller event on one of the child's fds; `token` is one of Tokens.
  void on_event(uint64_t token);
  // Heartbeats to the child, connect and silence timeouts; call every loop round.
  void on_timer(int64_t now_ms);
  // Queues an encoded head message for the child, given in two parts (a header and the rest) that are sent as
  // one frame; flush() writes what is queued (once per loop round, so small frames share a write).
  void send_frame(std::string_view head, std::string_view rest);
  void flush();
  // Frames for the head (Relayed, already encoded) since the last call.
  std::vector<std::string> take_upward();
  bool failed() const { return failed_; }
  int64_t next_deadline_ms() const { return next_heartbeat_ms_; }

 private:
  RelayChild(posix::Poller& poller, Tokens tokens, transport::SelfBinary binary, protocol::RelayOpen rest,
             int heartbeat_ms, int heartbeat_timeout_ms, int connect_timeout_s);
  void drain();
  bool restart();
  void fail(const std::string& why);
  void sync_registrations();

  posix::Poller& poller_;
  Tokens tokens_;
  transport::SelfBinary binary_;
  protocol::RelayOpen rest_;  // the chain after the child, passed on once it is ready
  std::unique_ptr<transport::Transport> transport_;
  transport::AgentTarget target_;
  std::string nonce_;
  std::unique_ptr<connection::AgentSession> session_;
  std::unique_ptr<connection::AgentSession> first_try_;  // a restarted child's first session, until reaped
  connection::SessionWatch watch_;
  bool ready_ = false, failed_ = false, restarted_ = false;
  int heartbeat_ms_, heartbeat_timeout_ms_, connect_timeout_s_;
  int64_t next_heartbeat_ms_ = 0;
  uint64_t heartbeat_seq_ = 0;
  std::vector<std::string> upward_;
};

}  // namespace muster::agent
