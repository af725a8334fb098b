#include "agent/relay_set.h"

#include <algorithm>
#include <set>
#include <string>

#include <fmt/core.h>

#include "posix/file.h"
#include "protocol/hops.h"

namespace muster::agent {

RelaySet::RelaySet(posix::EventLoop& loop, HeadLink& head, Guard& guard, int heartbeat_ms, int heartbeat_timeout_ms,
                   std::function<void(std::string_view frame)> mine)
    : loop_(loop),
      head_(head),
      guard_(guard),
      heartbeat_ms_(heartbeat_ms),
      heartbeat_timeout_ms_(heartbeat_timeout_ms),
      mine_(std::move(mine)) {}

// Starts an agent on each child of this node in the tree; one that cannot start is reported lost at once (the
// head may then reach it directly).
void RelaySet::open(const protocol::RelayOpen& open) {
  if (!children_.empty()) return head_.send(protocol::AgentError{"relay: this agent already has a relay tree"});
  if (open.transport > protocol::kRelayLocal) return head_.send(protocol::AgentError{"relay: unknown transport"});
  std::set<uint32_t> known = {open.self};  // every parent must be listed before its children
  for (size_t i = 0; i < open.indices.size(); ++i) {
    if (!known.count(open.parents[i]) || !known.insert(open.indices[i]).second) {
      return head_.send(protocol::AgentError{
          fmt::format("relay: node {} of the tree comes before its parent or twice", open.indices[i])});
    }
  }
  self_index_ = open.self;
  for (size_t i = 0; i < open.destinations.size(); ++i) {
    if (open.parents[i] != open.self) continue;
    auto child = RelayChild::start(open, i, loop_, heartbeat_ms_, heartbeat_timeout_ms_);
    if (!child) {
      head_.send(protocol::NodeLost{open.indices[i], child.error().message, ""});
      continue;
    }
    // Should this agent die, the guard ends the child's transport too: its agent then hears EOF and stops.
    (void)posix::write_all(guard_.pipe.get(), std::to_string((*child)->transport_pgid()) + "\n");
    children_.push_back(std::move(*child));
  }
}

// Relay frames are the bulk of a sync through the tree: they are looked into when this node's bit is set and
// passed on as views to the children whose subtree has a bit set, so the inner frame is copied once per child (or,
// on the direct data path, sealed once per child straight from the view).
// A SyncOpen makes this node scan its destination (tens of milliseconds to seconds): its children get it first,
// written at once, so the nodes of a chain scan together instead of one after the other.
void RelaySet::relay(const protocol::RelayView& message) {
  bool mine = false;
  uint8_t type = 0;
  if (protocol::has_hop(message.hops, self_index_)) {
    if (message.frame.size() < 5) {
      head_.send(protocol::AgentError{"relayed frame: too short"});
    } else {
      type = static_cast<uint8_t>(message.frame[4]);
      mine = type != static_cast<uint8_t>(protocol::Type::relay);  // a Relay nested in a Relay is dropped
    }
  }
  bool slow = mine && type == static_cast<uint8_t>(protocol::Type::sync_open);
  if (mine && !slow) mine_(message.frame);
  std::string header;
  for (auto& child : children_) {
    if (child->done() || !protocol::has_any_hop(message.hops, child->subtree())) continue;
    if (header.empty()) header = protocol::encode_relay_header(message.hops, message.frame.size());
    child->send_frame(header, message.frame);
    if (slow) child->flush();
  }
  if (slow) mine_(message.frame);
}

void RelaySet::pause(bool paused) {
  for (auto& child : children_) child->pause(paused);
}

void RelaySet::round() {
  for (auto& child : children_) {
    child->flush();
    for (const auto& frame : child->take_upward()) head_.send_encoded(frame);
    // A link that never came up was reported (SyncDataLinked); its child stays on ssh.
    if (auto* data = child->data(); data && data->failed() && !data->linked_once()) child->drop_data();
  }
}

void RelaySet::connect_data(const protocol::SyncDataConnect& connect) {
  data_session_ = connect.session;
  sync::DataLinkParams params = sync::link_params_of(connect);
  for (size_t i = 0; i < connect.nodes.size(); ++i) {
    uint32_t node = connect.nodes[i];
    auto it = std::find_if(children_.begin(), children_.end(), [&](const auto& child) { return child->index() == node; });
    if (it == children_.end() || (*it)->done()) {
      head_.send(protocol::SyncDataLinked{connect.session, node, "not a live child of this node"});
      continue;
    }
    uint32_t session = connect.session;
    auto on_linked = [this, session, node](const std::string& error) {
      head_.send(protocol::SyncDataLinked{session, node, error});
    };
    (*it)->attach_data(sync::DataOutbound::connect(loop_, connect.hosts[i], static_cast<int>(connect.ports[i]),
                                                   params, on_linked, nullptr));
  }
}

void RelaySet::drop_data(uint32_t node) {
  for (auto& child : children_) {
    if (child->index() == node) child->drop_data();
  }
}

void RelaySet::cut_data() {
  for (auto& child : children_) child->cut_data();
}

void RelaySet::finish_data() {
  for (auto& child : children_) child->finish_data();
}

void RelaySet::reset_data() {
  for (auto& child : children_) child->drop_data();
}

void RelaySet::shutdown() {
  for (auto& child : children_) {  // the subtree ends first; this agent waits for it (done())
    child->finish_data();  // (a sync's data ended before: the head shuts down after every commit); then ssh
    child->send_frame(protocol::encode(protocol::HeadMessage{protocol::Shutdown{}}), "");
    child->expect_end();
  }
}

bool RelaySet::done() const {
  return std::all_of(children_.begin(), children_.end(), [](const auto& child) { return child->done(); });
}

}  // namespace muster::agent
