// HeadLink: the agent's side of its connection to the head (docs/agent-protocol.md): frames in on stdin, frames out
// on stdout. It owns the outbox (one write per loop round, or at once when it holds kFlushAt), the heartbeats to
// the head, and the judgement that the head is gone: stdin at EOF, a write that fails, a malformed frame, or
// silence past the heartbeat timeout — looked at once more before judging, as a head's link does for its agent.
// Back-pressure (section 7): above kOutboxHigh queued bytes the link is throttled until it drains below
// kOutboxLow, and the agent stops reading worker pipes and relay children meanwhile, so memory stays bounded and
// nothing is lost. It never decides what a lost head means for the workers: that is the agent's rule.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "posix/event_loop.h"
#include "protocol/frame_reader.h"
#include "protocol/messages.h"
#include "protocol/codec.h"
#include "util/block_queue.h"

namespace muster::agent {

class HeadLink {
 public:
  static constexpr size_t kOutboxHigh = 8u << 20;       // throttled above this (spec section 7)
  static constexpr size_t kOutboxLow = kOutboxHigh / 2;  // and again free below this
  struct Callbacks {
    std::function<void(const protocol::HeadMessage&)> on_message;
    std::function<void(const protocol::RelayView&)> on_relay;  // Relay frames, undecoded (relay_set.h)
    std::function<void(const std::string& why)> on_lost;       // once
    std::function<void(bool throttled)> on_throttle;
  };

  HeadLink(posix::EventLoop& loop, int heartbeat_ms, int heartbeat_timeout_ms, Callbacks callbacks);
  // Starts reading stdin and queues the preamble line (sent with the first flush).
  Result<void> open(std::string_view preamble);

  void send(const protocol::AgentMessage& message);
  void send_encoded(std::string_view frame);
  // In-place output (worker pipes are read straight into the outbox): room for `bytes` at its end, then commit.
  std::span<char> reserve(size_t bytes);
  void commit(size_t bytes);
  // Writes what the head takes now; call once per loop round.
  void flush();
  // The agent decided the head is gone (a signal): as if it were lost, with `why`.
  void give_up(const std::string& why);

  bool gone() const { return gone_; }
  bool throttled() const { return throttled_; }
  bool drained() const { return outbox_.empty(); }

 private:
  void on_readable();
  void on_writable();
  void on_timer(int64_t now);
  void lost(const std::string& why);
  void update_throttle();

  posix::EventLoop& loop_;
  int heartbeat_ms_, heartbeat_timeout_ms_;
  Callbacks callbacks_;
  protocol::FrameReader frames_;
  BlockQueue outbox_;
  posix::EventLoop::FdWatch in_, out_;
  posix::EventLoop::Timer timer_;
  bool gone_ = false, eof_ = false, stdout_grown_ = false, throttled_ = false;
  int64_t last_heard_ms_;
  int64_t next_heartbeat_ms_ = 0;
  uint64_t heartbeat_seq_ = 0;
};

}  // namespace muster::agent
