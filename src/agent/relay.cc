#include "agent/relay.h"

#include <csignal>

#include <fmt/core.h>

#include "posix/clock.h"
#include "protocol/codec.h"
#include "util/random.h"

namespace muster::agent {
namespace {

std::string relayed(uint32_t hop, std::string frame) {
  return protocol::encode(protocol::AgentMessage{protocol::Relayed{hop, std::move(frame)}});
}

}  // namespace

Result<std::unique_ptr<RelayChild>> RelayChild::start(const protocol::RelayOpen& open, posix::Poller& poller,
                                                      Tokens tokens, int heartbeat_ms, int heartbeat_timeout_ms) {
  if (open.destinations.empty()) return make_error(ErrorKind::usage, "relay: an empty chain");
  auto binary = transport::self_binary();
  if (!binary) return binary.error();
  transport::SshOptions ssh;
  ssh.connect_timeout_s = static_cast<int>(open.connect_timeout_s);
  auto transport = transport::make_ssh_transport(*binary, ssh);
  protocol::RelayOpen rest{{open.destinations.begin() + 1, open.destinations.end()},
                           {open.names.begin() + 1, open.names.end()}, open.connect_timeout_s};
  std::unique_ptr<RelayChild> child(new RelayChild(poller, tokens, *binary, std::move(rest), heartbeat_ms,
                                                   heartbeat_timeout_ms, static_cast<int>(open.connect_timeout_s)));
  std::string nonce = random_hex(16);
  child->nonce_ = nonce;
  child->target_ = connection::agent_target(open.names[0], open.destinations[0], nonce, heartbeat_ms, heartbeat_timeout_ms);
  child->transport_ = std::move(transport);
  auto process = child->transport_->start(child->target_);
  if (!process) return make_error(ErrorKind::unreachable, "relay to {}: {}", open.names[0], process.error().message);
  child->session_ = std::make_unique<connection::AgentSession>(open.names[0], std::move(*process), nonce, &child->binary_,
                                                         posix::monotonic_ms());
  child->sync_registrations();
  return child;
}

RelayChild::RelayChild(posix::Poller& poller, Tokens tokens, transport::SelfBinary binary, protocol::RelayOpen rest,
                       int heartbeat_ms, int heartbeat_timeout_ms, int connect_timeout_s)
    : poller_(poller),
      tokens_(tokens),
      binary_(std::move(binary)),
      rest_(std::move(rest)),
      heartbeat_ms_(heartbeat_ms),
      heartbeat_timeout_ms_(heartbeat_timeout_ms),
      connect_timeout_s_(connect_timeout_s) {}

RelayChild::~RelayChild() {
  if (first_try_ && !first_try_->transport_reaped()) first_try_->kill_transport(SIGTERM);
  if (!session_) return;
  session_->close("the relay ended");  // EOF: the child agent tears down; closed fds leave epoll by themselves
  session_->kill_transport(SIGTERM);
}

void RelayChild::sync_registrations() { watch_.sync(poller_, *session_, tokens_.out, tokens_.err, tokens_.in); }

void RelayChild::fail(const std::string& why) {
  if (failed_) return;
  failed_ = true;
  std::string details = session_->diagnostics();
  upward_.push_back(relayed(1, protocol::encode(protocol::AgentMessage{protocol::AgentError{
                                   fmt::format("relay to {}: {}{}{}", session_->node(), why,
                                               details.empty() ? "" : ": ", details)}})));
  session_->close(why);
  session_->kill_transport(SIGTERM);
  sync_registrations();  // every fd is closed: nothing stays registered
}

void RelayChild::drain() {
  for (auto& message : session_->take_messages()) {
    if (auto* hello = std::get_if<protocol::Hello>(&message)) {
      ready_ = true;
      upward_.push_back(relayed(1, protocol::encode(protocol::AgentMessage{*hello})));
      if (!rest_.destinations.empty()) session_->send(rest_);
    } else if (auto* inner = std::get_if<protocol::Relayed>(&message)) {
      upward_.push_back(relayed(inner->hop + 1, std::move(inner->frame)));
    } else {
      upward_.push_back(relayed(1, protocol::encode(message)));
    }
  }
  if (session_->state() == connection::AgentSession::State::closed && !restart()) fail(session_->failure());
}

// A child that failed before it answered is started once more if the transport offers it (ssh: the node refused
// the key exchange muster asked for; agent_pool.cc does the same for the head's nodes).
bool RelayChild::restart() {
  if (restarted_ || ready_) return false;
  restarted_ = true;
  session_->on_stderr_readable();
  auto process = transport_->restart(target_, session_->diagnostics());
  if (!process || !*process) return false;
  session_->kill_transport(SIGTERM);
  if (watch_.err && session_->stderr_fd() >= 0) (void)poller_.remove(session_->stderr_fd());
  first_try_ = std::move(session_);
  session_ = std::make_unique<connection::AgentSession>(target_.node, std::move(**process), nonce_,
                                                        &binary_, posix::monotonic_ms());
  watch_ = {};
  sync_registrations();
  return true;
}

void RelayChild::on_event(uint64_t token) {
  if (failed_) return;
  int64_t now = posix::monotonic_ms();
  if (token == tokens_.out) session_->on_stdout_readable(now);
  if (token == tokens_.err) session_->on_stderr_readable();
  if (token == tokens_.in) session_->on_stdin_writable();
  drain();
  if (!failed_) sync_registrations();
}

void RelayChild::on_timer(int64_t now) {
  if (first_try_ && first_try_->transport_reaped()) first_try_.reset();
  if (failed_) return;
  if (!ready_) {
    int64_t limit = session_->connect_limit_ms(connect_timeout_s_);
    if (now - session_->started_ms() > limit) fail(fmt::format("no answer within {:.1f} s", limit / 1000.0));
    return;
  }
  if (now - session_->last_heard_ms() > heartbeat_timeout_ms_) {
    fail(fmt::format("no heartbeat for {} ms", now - session_->last_heard_ms()));
    return;
  }
  if (now >= next_heartbeat_ms_) {
    session_->send(protocol::HeadHeartbeat{heartbeat_seq_++, 0});
    next_heartbeat_ms_ = now + heartbeat_ms_;
    sync_registrations();
  }
}

void RelayChild::send_frame(std::string_view head, std::string_view rest) {
  if (failed_ || !ready_) return;  // the head sends down a chain only after every hop said Hello
  session_->queue_frame(head);
  session_->queue_frame(rest);
}

void RelayChild::flush() { on_event(tokens_.in); }

std::vector<std::string> RelayChild::take_upward() { return std::exchange(upward_, {}); }

}  // namespace muster::agent
