#include "head/agent_pool.h"

#include <algorithm>
#include <csignal>
#include <map>

#include <fmt/core.h>

#include "cluster/hostlist.h"
#include "posix/clock.h"
#include "posix/exit_status.h"
#include "posix/signals.h"
#include "protocol/codec.h"
#include "protocol/hops.h"
#include "util/random.h"

namespace muster::head {
namespace {

// Poller tokens of the pool: kind in the high 32 bits (1-3), node index in the low ones. Owners' tokens
// (watch_fd) use kinds >= 16.
enum Kind : uint64_t { kAgentOut = 1, kAgentErr = 2, kAgentIn = 3 };
uint64_t token(Kind kind, size_t node) { return (static_cast<uint64_t>(kind) << 32) | node; }

// A relay starts its children's agents one level at a time; each level may take the connect timeout and an
// upload of the binary. Past this, the head starts the silent ones itself.
constexpr int64_t kRelayLevelSlackMs = 2'000;
constexpr int64_t kRelayUploadMs = 60'000;

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
  if (options.transport == transport::TransportKind::slurm) options.fanout = 0;  // srun spreads its own launch
  if (options.transport != transport::TransportKind::local) options.virtual_nodes = false;
  bool extra_args = std::any_of(nodes.begin(), nodes.end(), [](const PoolNode& n) { return !n.agent_args.empty(); });
  if (extra_args) options.fanout = 0;  // the relays would run in the nodes' containers, without ssh
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
      tree_(make_relay_tree(nodes_.size(), options_.fanout)),
      slots_(nodes_.size()) {
  for (size_t node = 0; node < slots_.size(); ++node) {
    slots_[node].parent = tree_.parent[node];
    if (direct(node)) to_start_.push_back(node);
  }
}

AgentPool::~AgentPool() {
  // Closing a session closes the agent's stdin: the agent stops its workers (and the agents it started) and
  // exits. The transport processes (ssh clients) get SIGTERM so none outlives the head for long.
  for (auto& slot : slots_) {
    if (slot.first_try && !slot.first_try->transport_reaped()) slot.first_try->kill_transport(SIGTERM);
    if (!slot.session) continue;
    slot.session->close("muster is exiting");
    if (!slot.session->transport_reaped()) slot.session->kill_transport(SIGTERM);
  }
}

size_t AgentPool::root_of(size_t node) const {
  while (!direct(node)) node = slots_[node].parent;
  return node;
}

std::vector<size_t> AgentPool::carried_by(size_t node) const {
  std::vector<size_t> below;
  for (size_t other = node + 1; other < tree_.end[node]; ++other) {
    size_t at = other;
    while (!direct(at) && slots_[at].parent != node) at = slots_[at].parent;
    if (!direct(at)) below.push_back(other);
  }
  return below;
}

const protocol::Hello& AgentPool::hello(size_t node) const { return slots_[node].hello; }

bool AgentPool::alive(size_t node) const {
  const auto& slot = slots_[node];
  if (slot.lost || !slot.ready) return false;
  return !direct(node) || slot.session->state() == connection::AgentSession::State::ready;
}

size_t AgentPool::connections() const {
  return static_cast<size_t>(
      std::count_if(slots_.begin(), slots_.end(), [](const Slot& slot) { return slot.session != nullptr; }));
}

size_t AgentPool::depth() const {
  size_t deepest = 0;
  for (size_t node = 0; node < slots_.size(); ++node) {
    size_t depth = 1;
    for (size_t at = node; !direct(at); at = slots_[at].parent) ++depth;
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

Result<void> AgentPool::start_more_agents() {
  size_t connecting = 0;
  for (size_t i = 0; i < started_; ++i) {
    if (!slots_[to_start_[i]].ready && !slots_[to_start_[i]].lost) ++connecting;
  }
  int64_t now = posix::monotonic_ms();
  while (started_ < to_start_.size() && connecting < static_cast<size_t>(options_.max_parallel_connects)) {
    size_t node = to_start_[started_++];
    auto process = transport_->start(target(node));
    if (!process) return make_error(ErrorKind::unreachable, "{}: {}", nodes_[node].name, process.error().message);
    slots_[node].session =
        std::make_unique<connection::AgentSession>(nodes_[node].name, std::move(*process), nonce_, &binary_, now);
    sync_registrations(node);
    ++connecting;
  }
  return {};
}

// While connecting: a node the head started that failed is an error; one a relay was to start and that stays
// silent past its deadline is started by the head instead.
transport::AgentTarget AgentPool::target(size_t node) const {
  auto target = connection::agent_target(nodes_[node].name, nodes_[node].destination, nonce_, options_.heartbeat_ms,
                                         options_.heartbeat_timeout_ms, options_.virtual_nodes);
  target.agent_args.insert(target.agent_args.end(), nodes_[node].agent_args.begin(), nodes_[node].agent_args.end());
  return target;
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
  auto process = transport_->restart(target(node), slot.session->diagnostics());
  if (!process || !*process) return false;
  slot.session->kill_transport(SIGTERM);
  if (slot.watch.err && slot.session->stderr_fd() >= 0) (void)poller_.remove(slot.session->stderr_fd());
  slot.first_try = std::move(slot.session);
  slot.session = std::make_unique<connection::AgentSession>(nodes_[node].name, std::move(**process), nonce_, &binary_, now);
  slot.watch = {};
  sync_registrations(node);
  return true;
}

Result<void> AgentPool::check_connections(int64_t now) {
  for (size_t i = 0; i < started_; ++i) {
    if (restart_agent(to_start_[i], now)) continue;
    const auto& session = *slots_[to_start_[i]].session;
    bool closed = session.state() == connection::AgentSession::State::closed;
    auto overdue = session.connect_overdue(now, options_.ssh.connect_timeout_s);
    if (!closed && !overdue) continue;
    std::string why = closed ? session.failure() : *overdue;
    std::string details = session.diagnostics();
    return make_error(ErrorKind::unreachable, "cannot start the agent on {}: {}{}{}", session.node(), why,
                      details.empty() ? "" : "\n  ", details);
  }
  for (size_t node = 0; node < slots_.size(); ++node) {
    const auto& slot = slots_[node];
    if (direct(node) || slot.ready || slot.relay_deadline_ms == 0 || now <= slot.relay_deadline_ms) continue;
    reach_directly(node, "no answer through the launch tree");
  }
  return {};
}

// Hands each node that is up its part of the tree: its agent starts the agents below it.
void AgentPool::open_relays(int64_t now) {
  for (size_t node = 0; node < slots_.size(); ++node) {
    auto& slot = slots_[node];
    if (slot.relay_opened || !slot.ready || slot.lost || !direct(node)) continue;
    slot.relay_opened = true;
    protocol::RelayOpen open;
    open.self = static_cast<uint32_t>(node);
    open.connect_timeout_s = static_cast<uint32_t>(options_.ssh.connect_timeout_s);
    bool local = options_.transport == transport::TransportKind::local;
    open.transport = local ? protocol::kRelayLocal : protocol::kRelaySsh;
    int64_t level_ms = options_.ssh.connect_timeout_s * 1000LL + kRelayLevelSlackMs;
    size_t top = tree_.depth(node);
    for (size_t below : carried_by(node)) {
      open.destinations.push_back(nodes_[below].destination);
      open.names.push_back(nodes_[below].name);
      open.indices.push_back(static_cast<uint32_t>(below));
      open.parents.push_back(static_cast<uint32_t>(slots_[below].parent));
      slots_[below].relay_deadline_ms =
          now + static_cast<int64_t>(tree_.depth(below) - top) * level_ms + kRelayUploadMs;
    }
    if (!open.destinations.empty()) send(node, open);
  }
}

// A relay could not start `node` (while connecting): the head starts it itself, and it then starts the nodes
// below it as planned (a node that cannot reach its child need not be the child's only way in).
void AgentPool::reach_directly(size_t node, const std::string& why) {
  if (direct(node)) return;
  std::string parent = nodes_[slots_[node].parent].name;
  if (!options_.fall_back_to_star) {
    if (relay_failure_.empty()) {
      relay_failure_ = fmt::format("{} could not start the agent of {}: {}", parent, nodes_[node].name, why);
    }
    return;
  }
  for (size_t below : carried_by(node)) {  // started again by `node` once it is up
    slots_[below].ready = false;
    slots_[below].relay_deadline_ms = 0;
  }
  auto& slot = slots_[node];
  slot.parent = RelayTree::kHead;
  slot.ready = false;
  slot.relay_opened = false;
  slot.relay_deadline_ms = 0;
  to_start_.push_back(node);
  notes_.push_back(fmt::format("{} could not start the agent of {} ({}); the head connects to it directly", parent,
                               nodes_[node].name, why));
}

Result<void> AgentPool::connect(PoolListener* watched) {
  IgnoreAll ignore(watched);
  while (true) {
    if (auto started = start_more_agents(); !started) return started.error();
    int64_t now = posix::monotonic_ms();
    if (auto ok = check_connections(now); !ok) return ok.error();
    open_relays(now);
    if (!relay_failure_.empty()) return make_error(ErrorKind::unreachable, "launch tree: {}", relay_failure_);
    bool all_ready = started_ == to_start_.size() &&
                     std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.ready; });
    if (all_ready) {
      connected_ = true;
      return {};
    }
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
  if (!slot.ready && slot.session->has_hello() && direct(node)) {
    slot.ready = true;
    slot.hello = slot.session->hello();
  }
  for (auto& message : slot.session->take_messages()) on_session_message(node, std::move(message), listener);
  if (slot.session->state() == connection::AgentSession::State::closed && !slot.lost && slot.session->has_hello()) {
    lose(node, slot.session->failure(), slot.session->diagnostics(), listener);
  }
  sync_registrations(node);
}

// A message on `root`'s connection: its own, or one from a node below it (Relayed, NodeLost). A node below
// speaks only for nodes below it: anything naming another node is dropped.
void AgentPool::on_session_message(size_t root, protocol::AgentMessage message, PoolListener* listener) {
  auto from_below = [&](uint32_t node) { return node < slots_.size() && !direct(node) && root_of(node) == root; };
  if (auto* relayed = std::get_if<protocol::Relayed>(&message)) {
    if (!from_below(relayed->hop)) return;
    size_t node = relayed->hop;
    auto inner = protocol::decode_agent_frame(relayed->frame);
    if (!inner || !*inner || std::holds_alternative<protocol::Relayed>(**inner) ||
        std::holds_alternative<protocol::NodeLost>(**inner)) {
      return;  // nothing a node may say about itself this way
    }
    if (auto* hello = std::get_if<protocol::Hello>(&**inner)) {
      if (slots_[node].ready) return;
      slots_[node].ready = true;
      slots_[node].hello = std::move(*hello);
      return;
    }
    if (listener && alive(node)) listener->on_message(node, **inner);
    return;
  }
  if (auto* lost = std::get_if<protocol::NodeLost>(&message)) {
    if (!from_below(lost->node)) return;
    if (!connected_) {
      std::string why = lost->why;
      if (!lost->diagnostics.empty()) why += ": " + lost->diagnostics;
      return reach_directly(lost->node, why);
    }
    return lose(lost->node, lost->why, lost->diagnostics, listener);
  }
  if (std::holds_alternative<protocol::Hello>(message)) return;
  if (listener && !slots_[root].lost) listener->on_message(root, message);
}

void AgentPool::lose(size_t node, const std::string& why, const std::string& details, PoolListener* listener) {
  auto& slot = slots_[node];
  if (slot.lost) return;
  slot.lost = true;
  if (slot.session) {
    slot.session->close(why);
    slot.session->kill_transport(SIGTERM);
    sync_registrations(node);
  }
  std::vector<size_t> carried;
  std::vector<std::string> carried_names;
  for (size_t below : carried_by(node)) {
    if (slots_[below].lost) continue;
    slots_[below].lost = true;  // before the owner hears of it: nothing more is sent to them
    carried.push_back(below);
    carried_names.push_back(nodes_[below].name);
  }
  // The carrier's reason names the nodes lost with it: an owner that reports only the first loss names them all.
  std::string full = carried.empty() ? why
                                     : fmt::format("{}; {} lost with it (started through it)", why,
                                                   cluster::compress_hostlist(carried_names));
  if (listener) listener->on_lost(node, full, details);
  for (size_t below : carried) {
    if (listener) listener->on_lost(below, fmt::format("lost with {}, which carried it: {}", nodes_[node].name, why), "");
  }
}

void AgentPool::heartbeats(int64_t now, PoolListener& listener) {
  if (now < next_heartbeat_ms_) return;
  next_heartbeat_ms_ = now + options_.heartbeat_ms;
  for (size_t node = 0; node < slots_.size(); ++node) {
    if (!slots_[node].session || !alive(node)) continue;
    auto& session = *slots_[node].session;
    session.send(protocol::HeadHeartbeat{heartbeat_seq_, 0});
    sync_registrations(node);
    if (session.heartbeat_missing(now, options_.heartbeat_timeout_ms)) {
      service(node, kAgentOut, &listener);  // look once more before judging (connection/agent_session.h)
      if (!slots_[node].session || !alive(node)) continue;
      if (auto why = slots_[node].session->heartbeat_missing(now, options_.heartbeat_timeout_ms)) {
        lose(node, *why, slots_[node].session->diagnostics(), &listener);
      }
    }
  }
  ++heartbeat_seq_;
}

void AgentPool::send(size_t node, const protocol::HeadMessage& message) { send_frame(node, protocol::encode(message)); }

void AgentPool::send_frame(size_t node, std::string_view frame) {
  queue_frame(node, frame);
  size_t root = root_of(node);
  if (slots_[root].session) {
    slots_[root].session->on_stdin_writable();  // write now what can be written
    sync_registrations(root);
  }
}

void AgentPool::queue_frame(size_t node, std::string_view frame) {
  if (!alive(node)) return;
  queue_to_root(root_of(node), {node}, frame);
}

// `nodes` are alive and reached through `root`: one plain frame when it is `root` alone, else one Relay.
void AgentPool::queue_to_root(size_t root, const std::vector<size_t>& nodes, std::string_view frame) {
  auto& session = *slots_[root].session;
  if (nodes.size() == 1 && nodes[0] == root) {
    session.queue_frame(frame);
  } else {
    std::vector<uint32_t> hops(nodes.begin(), nodes.end());
    session.queue_frame(protocol::encode_relay_header(protocol::hop_mask(hops), frame.size()));
    session.queue_frame(frame);
  }
  sync_registrations(root);
}

size_t AgentPool::queue_frame_to(const std::vector<size_t>& nodes, std::string_view frame) {
  std::map<size_t, std::vector<size_t>> by_root;
  for (size_t node : nodes) {
    if (alive(node)) by_root[root_of(node)].push_back(node);
  }
  for (const auto& [root, members] : by_root) queue_to_root(root, members, frame);
  return by_root.size();
}

void AgentPool::broadcast(const protocol::HeadMessage& message) {
  std::vector<size_t> all(slots_.size());
  for (size_t node = 0; node < all.size(); ++node) all[node] = node;
  queue_frame_to(all, protocol::encode(message));
  for (size_t node = 0; node < slots_.size(); ++node) {
    if (!slots_[node].session || !alive(node)) continue;
    slots_[node].session->on_stdin_writable();
    sync_registrations(node);
  }
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
