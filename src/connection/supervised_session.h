// SupervisedSession: one link to an agent, kept alive and judged by whoever started it — the head's pool for each
// node it starts itself (head/agent_pool.h), and a relaying agent for each child it starts (agent/relay.h). The
// rules of supervision are written here once:
//   - a start that fails before the agent said Hello, or from which no byte came for half its connect limit, is
//     tried once more when the transport offers another way (ssh: the node refused muster's key exchange
//     choice, or the master connection the session went through hangs; Transport::restart); a silent start's
//     second try gets what is left of the same limit; the first try's transport is kept until it is reaped, so
//     no ssh client is left a zombie or running;
//   - a link that has not said Hello within its connect limit (AgentSession::connect_overdue) has failed;
//   - the agent gets a HeadHeartbeat every heartbeat period; a link whose agent stayed silent past the heartbeat
//     timeout has failed — but only after its stdout was read once more: after a stall of this process (a loaded
//     machine) the heartbeats may be waiting in the pipe;
//   - a paused link (its owner cannot take more: back-pressure) is not read, and silence while paused is not
//     silence.
// It registers its descriptors and one timer with the process's EventLoop and tells its owner what happened
// through Callbacks, called from the loop's handlers; a callback must not destroy the session it is called from.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "connection/agent_session.h"
#include "posix/event_loop.h"
#include "protocol/messages.h"
#include "transport/transport.h"

namespace muster::connection {

class SupervisedSession {
 public:
  struct Timing {
    int heartbeat_ms = 1000;
    int heartbeat_timeout_ms = 5000;
    int connect_timeout_s = 10;
  };
  struct Callbacks {
    std::function<void()> on_ready;                             // Hello arrived (hello() has it)
    std::function<void(protocol::AgentMessage&&)> on_message;   // every later message, in order
    std::function<void(const std::string& why)> on_failed;      // once: closed, overdue or silent (not after
                                                                // expect_end(), not after close())
  };

  // Starts the agent of `target` through `transport` (which must outlive the session).
  static Result<std::unique_ptr<SupervisedSession>> start(posix::EventLoop& loop, transport::Transport& transport,
                                                          transport::AgentTarget target, std::string nonce,
                                                          const transport::SelfBinary* binary, Timing timing,
                                                          Callbacks callbacks);
  ~SupervisedSession();  // closes the link (the agent hears EOF and stops) and signals its transport
  SupervisedSession(const SupervisedSession&) = delete;
  SupervisedSession& operator=(const SupervisedSession&) = delete;

  const std::string& node() const { return target_.node; }
  bool ready() const { return session_->has_hello(); }
  const protocol::Hello& hello() const { return session_->hello(); }
  bool open() const { return session_->state() != AgentSession::State::closed; }
  bool failed() const { return failed_; }
  // Closed after expect_end(): the agent was told to stop, and did.
  bool ended() const { return ending_ && !open(); }
  const std::string& failure() const { return session_->failure(); }
  std::string diagnostics() const { return session_->diagnostics(); }
  int transport_pgid() const { return session_->transport_pgid(); }

  void send(const protocol::HeadMessage& message);
  void send_frame(std::string_view frame);   // written at once (what can be)
  void queue_frame(std::string_view frame);  // written by flush() or when the pipe takes it
  void flush();
  void pause(bool paused);
  void expect_end() { ending_ = true; }
  // Ends the link on the owner's decision (no on_failed): EOF to the agent, SIGTERM to the transport.
  void close(const std::string& why);
  // The transport process has ended and was reaped (the first try's too).
  bool reaped();

 private:
  SupervisedSession(posix::EventLoop& loop, transport::Transport& transport, transport::AgentTarget target,
                    std::string nonce, const transport::SelfBinary* binary, Timing timing, Callbacks callbacks);
  void attach(std::unique_ptr<AgentSession> session);
  void on_event(int which, uint32_t events);
  void on_timer(int64_t now);
  void deliver();
  // `started_ms`: when the second try counts as started (the first try's start: one limit for both).
  bool restart(const std::string& note = "", std::optional<int64_t> started_ms = std::nullopt);
  void fail(const std::string& why);
  void sync_watches();
  void arm_timer(int64_t now);

  posix::EventLoop& loop_;
  transport::Transport& transport_;
  transport::AgentTarget target_;
  std::string nonce_;
  const transport::SelfBinary* binary_;
  Timing timing_;
  Callbacks callbacks_;
  std::unique_ptr<AgentSession> session_;
  std::unique_ptr<AgentSession> first_try_;  // a restarted link's first session, until its transport is reaped
  posix::EventLoop::FdWatch out_, err_, in_;
  posix::EventLoop::Timer timer_;
  bool ready_told_ = false, failed_ = false, ending_ = false, restarted_ = false, paused_ = false;
  bool asked_again_ = false;  // the transport was asked once about a silent start
  bool closed_by_owner_ = false;
  int64_t next_heartbeat_ms_ = 0;
  uint64_t heartbeat_seq_ = 0;
};

}  // namespace muster::connection
