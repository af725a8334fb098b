#include "head/agent_pool.h"

#include <algorithm>
#include <csignal>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cluster/hostlist.h"
#include "posix/clock.h"
#include "posix/exit_status.h"
#include "posix/signals.h"
#include "protocol/codec.h"
#include "protocol/hops.h"
#include "util/random.h"

namespace muster::head {
namespace {

// A relay starts its children's agents one level at a time; each level may take the connect timeout and an
// upload of the binary. Past this, the head starts the silent ones itself.
constexpr int64_t kRelayLevelSlackMs = 2'000;
constexpr int64_t kRelayUploadMs = 60'000;

}  // namespace

Result<std::unique_ptr<AgentPool>> AgentPool::create(std::vector<PoolNode> nodes, PoolOptions options,
                                                     posix::EventLoop& loop) {
  auto binary = transport::self_binary();
  if (!binary) return binary.error();
  if (options.transport == transport::TransportKind::slurm) options.fanout = 0;  // srun spreads its own launch
  if (options.transport != transport::TransportKind::local) options.virtual_nodes = false;
  bool extra_args = std::any_of(nodes.begin(), nodes.end(), [](const PoolNode& n) { return !n.agent_args.empty(); });
  if (extra_args) options.fanout = 0;  // the relays would run in the nodes' containers, without ssh
  auto transport = transport::make_transport(options.transport, *binary, options.ssh);
  return std::unique_ptr<AgentPool>(new AgentPool(std::move(nodes), std::move(options), nullptr, loop,
                                                  std::move(*binary), std::move(transport)));
}

Result<std::unique_ptr<AgentPool>> AgentPool::create(std::vector<PoolNode> nodes, PoolOptions options) {
  auto loop = posix::EventLoop::create();
  if (!loop) return loop.error();
  auto pool = create(std::move(nodes), std::move(options), **loop);
  if (!pool) return pool.error();
  (*pool)->owned_loop_ = std::move(*loop);
  return pool;
}

AgentPool::AgentPool(std::vector<PoolNode> nodes, PoolOptions options, std::unique_ptr<posix::EventLoop> owned,
                     posix::EventLoop& loop, transport::SelfBinary binary,
                     std::unique_ptr<transport::Transport> transport)
    : owned_loop_(std::move(owned)),
      nodes_(std::move(nodes)),
      options_(std::move(options)),
      loop_(loop),
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

// Each link's destructor closes the agent's stdin (the agent stops its workers and the agents it started, and
// exits) and sends SIGTERM to its transport, so no ssh client outlives the head for long.
AgentPool::~AgentPool() = default;

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
  return !direct(node) || (slot.link && slot.link->open());
}

size_t AgentPool::connections() const {
  return static_cast<size_t>(
      std::count_if(slots_.begin(), slots_.end(), [](const Slot& slot) { return slot.link != nullptr; }));
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

transport::AgentTarget AgentPool::target(size_t node) const {
  auto target = connection::agent_target(nodes_[node].name, nodes_[node].destination, nonce_, options_.heartbeat_ms,
                                         options_.heartbeat_timeout_ms, options_.virtual_nodes);
  target.agent_args.insert(target.agent_args.end(), nodes_[node].agent_args.begin(), nodes_[node].agent_args.end());
  return target;
}

Result<void> AgentPool::start_more_agents() {
  size_t connecting = 0;
  for (size_t i = 0; i < started_; ++i) {
    const auto& slot = slots_[to_start_[i]];
    if (!slot.ready && !slot.lost) ++connecting;
  }
  while (started_ < to_start_.size() && connecting < static_cast<size_t>(options_.max_parallel_connects)) {
    size_t node = to_start_[started_++];
    if (auto started = start_link(node); !started) {
      if (!options_.tolerate_unreachable) return started.error();
      on_link_failed(node, started.error().message);
      continue;
    }
    ++connecting;
  }
  return {};
}

Result<void> AgentPool::start_link(size_t node) {
  connection::SupervisedSession::Timing timing{options_.heartbeat_ms, options_.heartbeat_timeout_ms,
                                               options_.ssh.connect_timeout_s};
  connection::SupervisedSession::Callbacks callbacks;
  callbacks.on_ready = [this, node] {
    auto& slot = slots_[node];
    slot.ready = true;
    slot.hello = slot.link->hello();
    if (!connected_) return;
    if (listener_) listener_->on_ready(node);
    else pending_.push_back({node, false, "", "", false});
  };
  callbacks.on_message = [this, node](protocol::AgentMessage&& message) { on_session_message(node, std::move(message)); };
  callbacks.on_failed = [this, node](const std::string& why) { on_link_failed(node, why); };
  auto link = connection::SupervisedSession::start(loop_, *transport_, target(node), nonce_, &binary_, timing,
                                                   std::move(callbacks));
  if (!link) return make_error(ErrorKind::unreachable, "{}", link.error().message);
  slots_[node].link = std::move(*link);
  return {};
}

void AgentPool::reconnect(size_t node) {
  auto& slot = slots_[node];
  if (!slot.lost) return;
  slot.link.reset();
  slot.parent = RelayTree::kHead;  // its carrier may be gone: the head starts it now
  slot.lost = false;
  slot.ready = false;
  slot.relay_opened = true;  // the nodes below it are reconnected (directly) by their own owner's call
  slot.relay_deadline_ms = 0;
  if (auto started = start_link(node); !started) lose(node, started.error().message, "");
}

// While connecting, a node the head started that failed is the connect's error; afterwards it is lost.
void AgentPool::on_link_failed(size_t node, const std::string& why) {
  auto& slot = slots_[node];
  if (!connected_ && options_.tolerate_unreachable) {
    // Spares may be down: the node is lost for this pool, and connect() goes on without it.
    std::string details = slot.link ? slot.link->diagnostics() : "";
    slot.lost = true;
    if (slot.link) slot.link->close(why);
    slot.unreachable = why + (details.empty() ? "" : "\n  " + details);
    notes_.push_back(fmt::format("{}: cannot start its agent: {}{}{}", nodes_[node].name, why,
                                 details.empty() ? "" : ": ", details));
    return;
  }
  const auto& link = *slot.link;
  if (!connected_) {
    if (!connect_error_) {
      std::string details = link.diagnostics();
      connect_error_ = make_error(ErrorKind::unreachable, "cannot start the agent on {}: {}{}{}", link.node(), why,
                                  details.empty() ? "" : "\n  ", details);
    }
    return;
  }
  lose(node, why, link.diagnostics());
}

// A node a relay was to start that stays silent past its deadline is started by the head instead.
void AgentPool::check_relay_deadlines(int64_t now) {
  for (size_t node = 0; node < slots_.size(); ++node) {
    const auto& slot = slots_[node];
    if (direct(node) || slot.ready || slot.relay_deadline_ms == 0 || now <= slot.relay_deadline_ms) continue;
    reach_directly(node, "no answer through the launch tree");
  }
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

Result<void> AgentPool::connect() {
  while (true) {
    if (auto started = start_more_agents(); !started) return started.error();
    if (connect_error_) return *connect_error_;
    int64_t now = posix::monotonic_ms();
    check_relay_deadlines(now);
    open_relays(now);
    if (!relay_failure_.empty()) return make_error(ErrorKind::unreachable, "launch tree: {}", relay_failure_);
    bool all_settled = started_ == to_start_.size() &&
                       std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.ready || s.lost; });
    if (all_settled) {
      size_t ready = static_cast<size_t>(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.ready; }));
      if (ready < options_.required_nodes) {
        return make_error(ErrorKind::unreachable, "{} of {} nodes started their agents, {} needed:\n  {}", ready,
                          slots_.size(), options_.required_nodes, fmt::join(notes_, "\n  "));
      }
      connected_ = true;
      return {};
    }
    auto signals = wait_round(250);
    if (!signals) return signals.error();
    if (connect_error_) return *connect_error_;
    if (!signals->empty()) {
      return make_error(ErrorKind::interrupted, "interrupted by {} while connecting", posix::signal_name(signals->front()));
    }
  }
}

Result<std::vector<int>> AgentPool::poll(int timeout_ms, PoolListener& listener) {
  listener_ = &listener;
  for (auto& pending : std::exchange(pending_, {})) {
    if (!pending.lost) {
      if (alive(pending.node)) listener.on_ready(pending.node);
      continue;
    }
    listener.on_lost(pending.node, pending.why, pending.details, pending.carried);
  }
  auto signals = wait_round(timeout_ms);
  listener_ = nullptr;
  return signals;
}

Result<std::vector<int>> AgentPool::wait_round(int timeout_ms) {
  return loop_.run_once(std::clamp(timeout_ms, 0, 60'000));
}

// A message on `root`'s connection: its own, or one from a node below it (Relayed, NodeLost). A node below
// speaks only for nodes below it: anything naming another node is dropped.
void AgentPool::on_session_message(size_t root, protocol::AgentMessage message) {
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
    if (listener_ && alive(node)) listener_->on_message(node, **inner);
    return;
  }
  if (auto* lost = std::get_if<protocol::NodeLost>(&message)) {
    if (!from_below(lost->node)) return;
    if (!connected_) {
      std::string why = lost->why;
      if (!lost->diagnostics.empty()) why += ": " + lost->diagnostics;
      return reach_directly(lost->node, why);
    }
    return lose(lost->node, lost->why, lost->diagnostics);
  }
  if (listener_ && !slots_[root].lost) listener_->on_message(root, message);
}

void AgentPool::lose(size_t node, const std::string& why, const std::string& details) {
  auto& slot = slots_[node];
  if (slot.lost) return;
  slot.lost = true;
  if (slot.link) slot.link->close(why);
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
  tell_lost(node, full, details, false);
  for (size_t below : carried) {
    tell_lost(below, fmt::format("lost with {}, which carried it: {}", nodes_[node].name, why), "", true);
  }
}

void AgentPool::tell_lost(size_t node, const std::string& why, const std::string& details, bool carried) {
  if (!listener_) {
    if (connected_) pending_.push_back({node, true, why, details, carried});
    return;
  }
  listener_->on_lost(node, why, details, carried);
}

void AgentPool::send(size_t node, const protocol::HeadMessage& message) { send_frame(node, protocol::encode(message)); }

void AgentPool::send_frame(size_t node, std::string_view frame) {
  queue_frame(node, frame);
  size_t root = root_of(node);
  if (slots_[root].link) slots_[root].link->flush();  // write now what can be written
}

void AgentPool::queue_frame(size_t node, std::string_view frame) {
  if (!alive(node)) return;
  queue_to_root(root_of(node), {node}, frame);
}

// `nodes` are alive and reached through `root`: one plain frame when it is `root` alone, else one Relay.
void AgentPool::queue_to_root(size_t root, const std::vector<size_t>& nodes, std::string_view frame) {
  auto& link = *slots_[root].link;
  if (nodes.size() == 1 && nodes[0] == root) {
    link.queue_frame(frame);
  } else {
    std::vector<uint32_t> hops(nodes.begin(), nodes.end());
    link.queue_frame(protocol::encode_relay_header(protocol::hop_mask(hops), frame.size()));
    link.queue_frame(frame);
  }
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
  send_to(all, message);
}

void AgentPool::send_to(const std::vector<size_t>& nodes, const protocol::HeadMessage& message) {
  queue_frame_to(nodes, protocol::encode(message));
  std::set<size_t> roots;
  for (size_t node : nodes) {
    if (alive(node)) roots.insert(root_of(node));
  }
  for (size_t root : roots) {
    if (slots_[root].link && slots_[root].link->open()) slots_[root].link->flush();
  }
}

void AgentPool::shutdown(int wait_ms) {
  broadcast(protocol::Shutdown{});
  for (auto& slot : slots_) {
    if (!slot.link) continue;
    slot.link->expect_end();
    if (!slot.ready && slot.link->open()) slot.link->close("muster is done");  // still connecting: nothing to wait for
  }
  int64_t deadline = posix::monotonic_ms() + wait_ms;
  while (posix::monotonic_ms() < deadline) {
    bool all_gone = std::all_of(slots_.begin(), slots_.end(),
                                [](Slot& s) { return !s.link || (!s.link->open() && s.link->reaped()); });
    if (all_gone) return;
    if (!wait_round(50)) return;
  }
}

}  // namespace muster::head
