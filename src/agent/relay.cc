#include "agent/relay.h"

#include <algorithm>
#include <csignal>
#include <set>

#include <fmt/core.h>

#include "posix/clock.h"
#include "protocol/codec.h"
#include "util/random.h"

namespace muster::agent {
namespace {

std::string relayed(uint32_t node, std::string frame) {
  return protocol::encode(protocol::AgentMessage{protocol::Relayed{node, std::move(frame)}});
}

}  // namespace

protocol::RelayOpen subtree_open(const protocol::RelayOpen& open, size_t child) {
  protocol::RelayOpen rest;
  rest.connect_timeout_s = open.connect_timeout_s;
  rest.transport = open.transport;
  rest.self = open.indices[child];
  std::set<uint32_t> below = {open.indices[child]};
  for (size_t i = 0; i < open.indices.size(); ++i) {  // parents come before their children
    if (i == child || !below.count(open.parents[i])) continue;
    below.insert(open.indices[i]);
    rest.destinations.push_back(open.destinations[i]);
    rest.names.push_back(open.names[i]);
    rest.indices.push_back(open.indices[i]);
    rest.parents.push_back(open.parents[i]);
  }
  return rest;
}

Result<std::unique_ptr<RelayChild>> RelayChild::start(const protocol::RelayOpen& open, size_t child,
                                                      posix::Poller& poller, Tokens tokens, int heartbeat_ms,
                                                      int heartbeat_timeout_ms) {
  auto binary = transport::self_binary();
  if (!binary) return binary.error();
  transport::SshOptions ssh;
  ssh.connect_timeout_s = static_cast<int>(open.connect_timeout_s);
  auto transport = open.transport == protocol::kRelayLocal ? transport::make_local_transport(*binary)
                                                           : transport::make_ssh_transport(*binary, ssh);
  protocol::RelayOpen rest = subtree_open(open, child);
  std::vector<uint32_t> subtree = rest.indices;
  subtree.insert(subtree.begin(), open.indices[child]);
  std::unique_ptr<RelayChild> relay(new RelayChild(poller, tokens, *binary, std::move(rest), open.indices[child],
                                                   std::move(subtree), heartbeat_ms, heartbeat_timeout_ms,
                                                   static_cast<int>(open.connect_timeout_s)));
  relay->nonce_ = random_hex(16);
  relay->target_ = connection::agent_target(open.names[child], open.destinations[child], relay->nonce_, heartbeat_ms,
                                            heartbeat_timeout_ms, open.transport == protocol::kRelayLocal);
  relay->transport_ = std::move(transport);
  auto process = relay->transport_->start(relay->target_);
  if (!process) return make_error(ErrorKind::unreachable, "relay to {}: {}", open.names[child], process.error().message);
  relay->session_ = std::make_unique<connection::AgentSession>(open.names[child], std::move(*process), relay->nonce_,
                                                               &relay->binary_, posix::monotonic_ms());
  relay->sync_registrations();
  return relay;
}

RelayChild::RelayChild(posix::Poller& poller, Tokens tokens, transport::SelfBinary binary, protocol::RelayOpen rest,
                       uint32_t index, std::vector<uint32_t> subtree, int heartbeat_ms, int heartbeat_timeout_ms,
                       int connect_timeout_s)
    : poller_(poller),
      tokens_(tokens),
      binary_(std::move(binary)),
      rest_(std::move(rest)),
      index_(index),
      subtree_(std::move(subtree)),
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

void RelayChild::pause(bool paused) {
  if (done() || watch_.paused == paused) return;
  watch_.paused = paused;
  if (!paused) session_->heard_from(posix::monotonic_ms());  // unread while paused is not silence
  sync_registrations();
}

int RelayChild::transport_pgid() const { return session_->transport_pgid(); }

void RelayChild::fail(const std::string& why) {
  if (failed_ || ended_) return;
  if (ending_) {  // it was told to shut down, and did
    ended_ = true;
    session_->close(why);
    sync_registrations();
    return;
  }
  failed_ = true;
  upward_.push_back(protocol::encode(protocol::AgentMessage{protocol::NodeLost{
      index_, fmt::format("relay to {}: {}", session_->node(), why), session_->diagnostics()}}));
  session_->close(why);
  session_->kill_transport(SIGTERM);
  sync_registrations();  // every fd is closed: nothing stays registered
}

void RelayChild::drain() {
  for (auto& message : session_->take_messages()) {
    if (auto* hello = std::get_if<protocol::Hello>(&message)) {
      ready_ = true;
      upward_.push_back(relayed(index_, protocol::encode(protocol::AgentMessage{*hello})));
      session_->send(rest_);  // its index in the tree (Relay masks name it by that), and the nodes below it
    } else if (std::holds_alternative<protocol::Heartbeat>(message)) {
      // Liveness of this link only (the session noted the time); the head watches its own links.
    } else if (std::holds_alternative<protocol::Relayed>(message) ||
               std::holds_alternative<protocol::NodeLost>(message)) {
      upward_.push_back(protocol::encode(message));  // from further down: already named by its index
    } else {
      upward_.push_back(relayed(index_, protocol::encode(message)));
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
  session_ = std::make_unique<connection::AgentSession>(target_.node, std::move(**process), nonce_, &binary_,
                                                        posix::monotonic_ms());
  watch_ = {};
  sync_registrations();
  return true;
}

void RelayChild::on_event(uint64_t token) {
  if (done()) return;
  int64_t now = posix::monotonic_ms();
  if (token == tokens_.out) session_->on_stdout_readable(now);
  if (token == tokens_.err) session_->on_stderr_readable();
  if (token == tokens_.in) session_->on_stdin_writable();
  drain();
  if (!failed_) sync_registrations();
}

void RelayChild::on_timer(int64_t now) {
  if (first_try_ && first_try_->transport_reaped()) first_try_.reset();
  if (done()) {
    session_->transport_reaped();  // no zombie once it has ended
    return;
  }
  if (!ready_) {
    if (auto why = session_->connect_overdue(now, connect_timeout_s_)) fail(*why);
    return;
  }
  if (!watch_.paused && session_->heartbeat_missing(now, heartbeat_timeout_ms_)) {
    on_event(tokens_.out);  // look once more before judging (agent_session.h)
    if (done()) return;
    auto why = watch_.paused ? std::nullopt : session_->heartbeat_missing(now, heartbeat_timeout_ms_);
    if (why) {
      fail(*why);
      return;
    }
  }
  if (now >= next_heartbeat_ms_) {
    session_->send(protocol::HeadHeartbeat{heartbeat_seq_++, 0});
    next_heartbeat_ms_ = now + heartbeat_ms_;
    sync_registrations();
  }
}

void RelayChild::send_frame(std::string_view head, std::string_view rest) {
  if (done() || !ready_) return;  // the head sends into a subtree only after its nodes said Hello
  session_->queue_frame(head);
  session_->queue_frame(rest);
}

void RelayChild::flush() { on_event(tokens_.in); }

std::vector<std::string> RelayChild::take_upward() { return std::exchange(upward_, {}); }

}  // namespace muster::agent
