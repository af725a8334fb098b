#include "head/agent_pool.h"

#include <algorithm>
#include <csignal>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/exit_status.h"
#include "posix/signals.h"
#include "util/random.h"

namespace muster::head {
namespace {


// Poller tokens of the pool: kind in the high 32 bits (1-3), node index in the low ones. Owners' tokens
// (watch_fd) use kinds >= 16.
enum Kind : uint64_t { kAgentOut = 1, kAgentErr = 2, kAgentIn = 3 };
uint64_t token(Kind kind, size_t node) { return (static_cast<uint64_t>(kind) << 32) | node; }

// Discards messages while connecting or shutting down (only Hello arrives while connecting, and the session keeps
// it); the owner's watched fds still go to the owner, when it has any (a level-triggered fd nobody reads would
// make every wait return at once).
class IgnoreAll final : public PoolListener {
 public:
  explicit IgnoreAll(PoolListener* watched = nullptr) : watched_(watched) {}
  void on_message(size_t, const protocol::AgentMessage&) override {}
  void on_lost(size_t, const std::string&, const std::string&) override {}
  void on_watched_fd(uint64_t token, uint32_t events) override {
    if (watched_) watched_->on_watched_fd(token, events);
  }

 private:
  PoolListener* watched_;
};

}  // namespace

Result<std::unique_ptr<AgentPool>> AgentPool::create(std::vector<PoolNode> nodes, PoolOptions options) {
  auto binary = transport::self_binary();
  if (!binary) return binary.error();
  auto poller = posix::Poller::create();
  if (!poller) return poller.error();
  auto transport = transport::make_transport(options.transport, *binary, options.ssh);
  return std::unique_ptr<AgentPool>(new AgentPool(std::move(nodes), std::move(options), std::move(*poller),
                                                  std::move(*binary), std::move(transport)));
}

AgentPool::AgentPool(std::vector<PoolNode> nodes, PoolOptions options, posix::Poller poller,
                     transport::SelfBinary binary, std::unique_ptr<transport::Transport> transport)
    : nodes_(std::move(nodes)),
      options_(std::move(options)),
      poller_(std::move(poller)),
      binary_(std::move(binary)),
      transport_(std::move(transport)),
      nonce_(random_hex(16)),
      slots_(nodes_.size()) {}

AgentPool::~AgentPool() {
  // Closing a session closes the agent's stdin: the agent stops its workers and exits. The transport
  // processes (ssh clients) get SIGTERM so none outlives the head for long.
  for (auto& slot : slots_) {
    if (slot.first_try && !slot.first_try->transport_reaped()) slot.first_try->kill_transport(SIGTERM);
    if (!slot.session) continue;
    slot.session->close("muster is exiting");
    if (!slot.session->transport_reaped()) slot.session->kill_transport(SIGTERM);
  }
}

bool AgentPool::alive(size_t node) const {
  const auto& slot = slots_[node];
  return slot.session && !slot.lost && slot.session->state() == connection::AgentSession::State::ready;
}

Result<void> AgentPool::start_more_agents() {
  size_t connecting = 0;
  for (size_t i = 0; i < started_; ++i) {
    if (slots_[i].session->state() == connection::AgentSession::State::connecting) ++connecting;
  }
  int64_t now = posix::monotonic_ms();
  while (started_ < slots_.size() && connecting < static_cast<size_t>(options_.max_parallel_connects)) {
    size_t node = started_++;
    auto target = connection::agent_target(nodes_[node].name, nodes_[node].destination, nonce_,
                                           options_.heartbeat_ms, options_.heartbeat_timeout_ms);
    target.agent_args.insert(target.agent_args.end(), nodes_[node].agent_args.begin(), nodes_[node].agent_args.end());
    auto process = transport_->start(target);
    if (!process) return make_error(ErrorKind::unreachable, "{}: {}", nodes_[node].name, process.error().message);
    slots_[node].session = std::make_unique<connection::AgentSession>(nodes_[node].name, std::move(*process), nonce_, &binary_, now);
    sync_registrations(node);
    ++connecting;
  }
  return {};
}

Result<void> AgentPool::check_connections(int64_t now) {
  for (size_t node = 0; node < started_; ++node) {
    if (restart_agent(node, now)) continue;
    const auto& session = *slots_[node].session;
    bool closed = session.state() == connection::AgentSession::State::closed;
    int64_t limit = session.connect_limit_ms(options_.ssh.connect_timeout_s);
    bool late = session.state() == connection::AgentSession::State::connecting && now - session.started_ms() > limit;
    if (!closed && !late) continue;
    std::string why = closed ? session.failure() : fmt::format("no answer within {:.1f} s", limit / 1000.0);
    std::string details = session.diagnostics();
    return make_error(ErrorKind::unreachable, "cannot start the agent on {}: {}{}{}", session.node(), why,
                      details.empty() ? "" : "\n  ", details);
  }
  return {};
}

// Once per node, a start that failed before the agent answered gets a second one if the transport offers it
// (ssh: the node refused muster's key exchange choice). The first transport is kept until it is reaped.
bool AgentPool::restart_agent(size_t node, int64_t now) {
  auto& slot = slots_[node];
  if (slot.restarted || slot.session->has_hello() || slot.session->state() != connection::AgentSession::State::closed) {
    return false;
  }
  slot.restarted = true;
  slot.session->on_stderr_readable();  // what the transport wrote before it closed its stdout
  auto process = transport_->restart(connection::agent_target(nodes_[node].name, nodes_[node].destination, nonce_,
                                                              options_.heartbeat_ms, options_.heartbeat_timeout_ms),
                                     slot.session->diagnostics());
  if (!process || !*process) return false;
  slot.session->kill_transport(SIGTERM);
  if (slot.watch.err && slot.session->stderr_fd() >= 0) (void)poller_.remove(slot.session->stderr_fd());
  slot.first_try = std::move(slot.session);
  slot.session = std::make_unique<connection::AgentSession>(nodes_[node].name, std::move(**process), nonce_, &binary_, now);
  slot.watch = {};
  sync_registrations(node);
  return true;
}

Result<void> AgentPool::connect(PoolListener* watched) {
  IgnoreAll ignore(watched);
  while (true) {
    if (auto started = start_more_agents(); !started) return started.error();
    int64_t now = posix::monotonic_ms();
    if (auto ok = check_connections(now); !ok) return ok.error();
    bool all_ready = started_ == slots_.size() && std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) {
                       return s.session->state() == connection::AgentSession::State::ready;
                     });
    if (all_ready) return {};
    auto signals = wait_round(250, &ignore);
    if (!signals) return signals.error();
    heartbeats(posix::monotonic_ms(), ignore);  // agents already up must not think the head is gone
    if (!signals->empty()) {
      return make_error(ErrorKind::interrupted, "interrupted by {} while connecting", posix::signal_name(signals->front()));
    }
  }
}

Result<std::vector<int>> AgentPool::poll(int timeout_ms, PoolListener& listener) {
  int64_t now = posix::monotonic_ms();
  int wait = static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(timeout_ms, next_heartbeat_ms_ - now), 0, 60'000));
  auto signals = wait_round(wait, &listener);
  if (signals) heartbeats(posix::monotonic_ms(), listener);
  return signals;
}

Result<std::vector<int>> AgentPool::wait_round(int timeout_ms, PoolListener* listener) {
  auto events = poller_.wait(timeout_ms);
  if (!events) return events.error();
  for (const auto& event : *events) {
    uint64_t kind = event.token >> 32;
    if (kind >= kAgentOut && kind <= kAgentIn) {
      service(static_cast<size_t>(event.token & 0xFFFFFFFFu), kind, listener);
    } else if (listener) {
      listener->on_watched_fd(event.token, event.events);
    }
  }
  std::vector<int> signals;
  for (int signal : posix::take_pending_signals()) {
    if (signal != SIGCHLD) signals.push_back(signal);
  }
  for (auto& slot : slots_) {
    if (slot.session) slot.session->transport_reaped();  // reap ssh clients that have ended
    if (slot.first_try && slot.first_try->transport_reaped()) slot.first_try.reset();
  }
  return signals;
}

void AgentPool::service(size_t node, uint64_t kind, PoolListener* listener) {
  auto& slot = slots_[node];
  if (!slot.session) return;
  int64_t now = posix::monotonic_ms();
  if (kind == kAgentOut) slot.session->on_stdout_readable(now);
  if (kind == kAgentErr) slot.session->on_stderr_readable();
  if (kind == kAgentIn) slot.session->on_stdin_writable();
  for (const auto& message : slot.session->take_messages()) {
    if (listener && !std::holds_alternative<protocol::Hello>(message)) listener->on_message(node, message);
  }
  if (slot.session->state() == connection::AgentSession::State::closed && !slot.lost && slot.session->has_hello()) {
    lose(node, slot.session->failure(), listener);
  }
  sync_registrations(node);
}

void AgentPool::lose(size_t node, const std::string& why, PoolListener* listener) {
  auto& slot = slots_[node];
  if (slot.lost) return;
  slot.lost = true;
  std::string details = slot.session->diagnostics();
  slot.session->close(why);
  slot.session->kill_transport(SIGTERM);
  sync_registrations(node);
  if (listener) listener->on_lost(node, why, details);
}

void AgentPool::heartbeats(int64_t now, PoolListener& listener) {
  if (now < next_heartbeat_ms_) return;
  next_heartbeat_ms_ = now + options_.heartbeat_ms;
  for (size_t node = 0; node < slots_.size(); ++node) {
    if (!alive(node)) continue;
    auto& session = *slots_[node].session;
    session.send(protocol::HeadHeartbeat{heartbeat_seq_, 0});
    sync_registrations(node);
    if (now - session.last_heard_ms() > options_.heartbeat_timeout_ms) {
      lose(node, fmt::format("no heartbeat for {} ms", now - session.last_heard_ms()), &listener);
    }
  }
  ++heartbeat_seq_;
}

void AgentPool::send(size_t node, const protocol::HeadMessage& message) {
  if (!alive(node)) return;
  slots_[node].session->send(message);
  sync_registrations(node);
}

void AgentPool::send_frame(size_t node, std::string_view frame) {
  if (!alive(node)) return;
  slots_[node].session->send_frame(frame);
  sync_registrations(node);
}

void AgentPool::queue_frame(size_t node, std::string_view frame) {
  if (!alive(node)) return;
  slots_[node].session->queue_frame(frame);
  sync_registrations(node);
}

void AgentPool::broadcast(const protocol::HeadMessage& message) {
  for (size_t node = 0; node < slots_.size(); ++node) send(node, message);
}

void AgentPool::shutdown(int wait_ms, PoolListener* watched) {
  broadcast(protocol::Shutdown{});
  IgnoreAll ignore(watched);
  int64_t deadline = posix::monotonic_ms() + wait_ms;
  while (posix::monotonic_ms() < deadline) {
    bool all_gone = std::all_of(slots_.begin(), slots_.end(), [](Slot& s) {
      return !s.session || (s.session->state() == connection::AgentSession::State::closed && s.session->transport_reaped());
    });
    if (all_gone) return;
    if (!wait_round(50, &ignore)) return;
  }
}

void AgentPool::sync_registrations(size_t node) {
  auto& slot = slots_[node];
  slot.watch.sync(poller_, *slot.session, token(kAgentOut, node), token(kAgentErr, node), token(kAgentIn, node));
}

Result<void> AgentPool::watch_fd(int fd, uint32_t events, uint64_t token_value) {
  return poller_.add(fd, events, token_value);
}

Result<void> AgentPool::unwatch_fd(int fd) { return poller_.remove(fd); }

Result<void> AgentPool::rewatch_fd(int fd, uint32_t events, uint64_t token_value) {
  return poller_.modify(fd, events, token_value);
}

}  // namespace muster::head
