#include "connection/supervised_session.h"

#include <algorithm>
#include <csignal>

#include "posix/clock.h"

namespace muster::connection {
namespace {
enum Which { kOut, kErr, kIn };
}

Result<std::unique_ptr<SupervisedSession>> SupervisedSession::start(posix::EventLoop& loop,
                                                                    transport::Transport& transport,
                                                                    transport::AgentTarget target, std::string nonce,
                                                                    const transport::SelfBinary* binary,
                                                                    Timing timing, Callbacks callbacks) {
  auto process = transport.start(target);
  if (!process) return make_error(ErrorKind::unreachable, "{}: {}", target.node, process.error().message);
  std::unique_ptr<SupervisedSession> link(new SupervisedSession(loop, transport, std::move(target), std::move(nonce),
                                                                binary, timing, std::move(callbacks)));
  link->attach(std::make_unique<AgentSession>(link->target_.node, std::move(*process), link->nonce_, binary,
                                              posix::monotonic_ms()));
  return link;
}

SupervisedSession::SupervisedSession(posix::EventLoop& loop, transport::Transport& transport,
                                     transport::AgentTarget target, std::string nonce,
                                     const transport::SelfBinary* binary, Timing timing, Callbacks callbacks)
    : loop_(loop),
      transport_(transport),
      target_(std::move(target)),
      nonce_(std::move(nonce)),
      binary_(binary),
      timing_(timing),
      callbacks_(std::move(callbacks)),
      timer_(loop.timer([this](int64_t now) { on_timer(now); })) {}

SupervisedSession::~SupervisedSession() {
  out_.reset();
  err_.reset();
  in_.reset();
  if (first_try_ && !first_try_->transport_reaped()) first_try_->kill_transport(SIGTERM);
  if (!session_) return;
  session_->close("muster is exiting");  // EOF: the agent stops its workers (and the agents it started)
  if (!session_->transport_reaped()) session_->kill_transport(SIGTERM);
}

void SupervisedSession::attach(std::unique_ptr<AgentSession> session) {
  session_ = std::move(session);
  sync_watches();
  arm_timer(posix::monotonic_ms());
}

// Registrations follow the session: stdout while open and not paused, stderr until its EOF, stdin while there
// are bytes to write. A descriptor the session closed by itself left epoll with it (forget, never remove).
void SupervisedSession::sync_watches() {
  auto one = [&](posix::EventLoop::FdWatch& watch, int fd, int which, uint32_t events) {
    if (fd < 0) {
      watch.forget();
      return;
    }
    if (!watch.active()) {
      auto made = loop_.watch(fd, events, [this, which](uint32_t ready) { on_event(which, ready); });
      if (made) watch = std::move(*made);
      return;
    }
    (void)watch.set_events(events);
  };
  one(out_, session_->stdout_fd(), kOut, paused_ ? 0 : posix::poll_readable);
  one(err_, session_->stderr_fd(), kErr, posix::poll_readable);
  one(in_, session_->stdin_fd(), kIn, session_->wants_write() ? posix::poll_writable : 0);
}

void SupervisedSession::on_event(int which, uint32_t events) {
  (void)events;
  int64_t now = posix::monotonic_ms();
  if (which == kOut) session_->on_stdout_readable(now);
  if (which == kErr) session_->on_stderr_readable();
  if (which == kIn) session_->on_stdin_writable();
  deliver();
}

// Hands what the session decoded to the owner, then judges a closed session: before Hello, one restart; else
// a failure (or the end the owner expected).
void SupervisedSession::deliver() {
  if (session_->has_hello() && !ready_told_) {
    ready_told_ = true;
    arm_timer(posix::monotonic_ms());
    if (callbacks_.on_ready) callbacks_.on_ready();
  }
  for (auto& message : session_->take_messages()) {
    if (std::holds_alternative<protocol::Hello>(message)) continue;
    if (failed_ || closed_by_owner_) break;
    if (callbacks_.on_message) callbacks_.on_message(std::move(message));
  }
  if (!open() && !failed_ && !closed_by_owner_ && !restart()) fail(session_->failure());
  if (session_) sync_watches();
}

bool SupervisedSession::restart(const std::string& note, std::optional<int64_t> started_ms) {
  if (restarted_ || session_->has_hello() || ending_) return false;
  session_->on_stderr_readable();  // what the transport wrote before it closed its stdout
  std::string diagnostics = session_->diagnostics();
  if (!note.empty()) diagnostics += "\n" + note;
  auto process = transport_.restart(target_, diagnostics);
  if (!process) return false;
  restarted_ = true;
  if (!*process) return false;
  session_->close("started again");
  session_->kill_transport(SIGTERM);
  sync_watches();  // forgets what the closed session's descriptors were
  out_.reset();
  err_.reset();
  in_.reset();
  first_try_ = std::move(session_);
  attach(std::make_unique<AgentSession>(target_.node, std::move(**process), nonce_, binary_,
                                        started_ms.value_or(posix::monotonic_ms())));
  arm_timer(posix::monotonic_ms());
  return true;
}

void SupervisedSession::fail(const std::string& why) {
  if (failed_ || closed_by_owner_) return;
  if (ending_ && !open()) return;  // told to shut down, and did
  failed_ = true;
  out_.reset();
  in_.reset();
  session_->close(why);
  session_->kill_transport(SIGTERM);
  sync_watches();
  if (callbacks_.on_failed) callbacks_.on_failed(why);
}

void SupervisedSession::close(const std::string& why) {
  if (closed_by_owner_) return;
  closed_by_owner_ = true;
  out_.reset();
  in_.reset();
  session_->close(why);
  session_->kill_transport(SIGTERM);
  sync_watches();
}

void SupervisedSession::arm_timer(int64_t now) {
  if (failed_ || closed_by_owner_) {
    timer_.arm(now + 100);  // only to reap what is left
    return;
  }
  if (!session_->has_hello()) {
    timer_.arm(std::min(now + 100, session_->started_ms() + session_->connect_limit_ms(timing_.connect_timeout_s) + 1));
    return;
  }
  timer_.arm(std::min(next_heartbeat_ms_, session_->last_heard_ms() + timing_.heartbeat_timeout_ms + 1));
}

void SupervisedSession::on_timer(int64_t now) {
  if (first_try_ && first_try_->transport_reaped()) first_try_.reset();
  if (failed_ || closed_by_owner_ || !open()) {
    bool done = session_->transport_reaped() && !first_try_;
    if (!done) arm_timer(now);
    return;
  }
  if (!session_->has_hello()) {
    if (auto why = session_->connect_overdue(now, timing_.connect_timeout_s)) return fail(*why);
    // Silent for half the limit: the transport may know a second way (a hanging ssh master). The second try
    // keeps the first one's start, so a node that answers neither way fails within the same limit.
    int64_t silent_for = now - session_->started_ms();
    if (!asked_again_ && !session_->heard_anything() &&
        silent_for * 2 > session_->connect_limit_ms(timing_.connect_timeout_s)) {
      asked_again_ = true;
      (void)restart(std::string(transport::kNoAnswer), session_->started_ms());
    }
    return arm_timer(now);
  }
  if (!paused_ && session_->heartbeat_missing(now, timing_.heartbeat_timeout_ms)) {
    on_event(kOut, posix::poll_readable);  // look once more before judging
    if (failed_ || !open()) return;
    if (auto why = session_->heartbeat_missing(now, timing_.heartbeat_timeout_ms)) return fail(*why);
  }
  if (now >= next_heartbeat_ms_) {
    session_->send(protocol::HeadHeartbeat{heartbeat_seq_++, 0});
    next_heartbeat_ms_ = now + timing_.heartbeat_ms;
    sync_watches();
  }
  arm_timer(now);
}

void SupervisedSession::send(const protocol::HeadMessage& message) {
  session_->send(message);
  sync_watches();
}

void SupervisedSession::send_frame(std::string_view frame) {
  session_->send_frame(frame);
  sync_watches();
}

void SupervisedSession::queue_frame(std::string_view frame) {
  session_->queue_frame(frame);
  if (!in_.active() || in_.events() == 0) sync_watches();  // written when the pipe takes it
}

void SupervisedSession::flush() {
  session_->on_stdin_writable();
  if (!open() && !failed_ && !closed_by_owner_) return deliver();
  sync_watches();
}

void SupervisedSession::pause(bool paused) {
  if (paused_ == paused || !open()) return;
  paused_ = paused;
  if (!paused) session_->heard_from(posix::monotonic_ms());  // unread while paused is not silence
  sync_watches();
}

bool SupervisedSession::reaped() {
  if (first_try_ && first_try_->transport_reaped()) first_try_.reset();
  return !first_try_ && session_->transport_reaped();
}

}  // namespace muster::connection
