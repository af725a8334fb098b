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
                                                      posix::EventLoop& loop, int heartbeat_ms,
                                                      int heartbeat_timeout_ms) {
  auto binary = transport::self_binary();
  if (!binary) return binary.error();
  transport::SshOptions ssh;
  ssh.connect_timeout_s = static_cast<int>(open.connect_timeout_s);
  bool local = open.transport == protocol::kRelayLocal;
  protocol::RelayOpen rest = subtree_open(open, child);
  std::vector<uint32_t> subtree = rest.indices;
  subtree.insert(subtree.begin(), open.indices[child]);
  std::unique_ptr<RelayChild> relay(new RelayChild(*binary, std::move(rest), open.indices[child], std::move(subtree)));
  relay->transport_ = local ? transport::make_local_transport(relay->binary_)
                            : transport::make_ssh_transport(relay->binary_, ssh);
  std::string nonce = random_hex(16);
  auto target = connection::agent_target(open.names[child], open.destinations[child], nonce, heartbeat_ms,
                                         heartbeat_timeout_ms, local);
  RelayChild* self = relay.get();
  connection::SupervisedSession::Callbacks callbacks;
  callbacks.on_ready = [self] {
    self->upward_.push_back(relayed(self->index_, protocol::encode(protocol::AgentMessage{self->link_->hello()})));
    self->link_->send(self->rest_);  // its index in the tree (Relay masks name it by that), and the nodes below it
  };
  callbacks.on_message = [self](protocol::AgentMessage&& message) { self->on_message(std::move(message)); };
  callbacks.on_failed = [self](const std::string& why) {
    self->upward_.push_back(protocol::encode(protocol::AgentMessage{protocol::NodeLost{
        self->index_, fmt::format("relay to {}: {}", self->link_->node(), why), self->link_->diagnostics()}}));
  };
  connection::SupervisedSession::Timing timing{heartbeat_ms, heartbeat_timeout_ms,
                                               static_cast<int>(open.connect_timeout_s)};
  auto link = connection::SupervisedSession::start(loop, *relay->transport_, std::move(target), std::move(nonce),
                                                   &relay->binary_, timing, std::move(callbacks));
  if (!link) return make_error(ErrorKind::unreachable, "relay to {}", link.error().message);
  relay->link_ = std::move(*link);
  return relay;
}

RelayChild::RelayChild(transport::SelfBinary binary, protocol::RelayOpen rest, uint32_t index,
                       std::vector<uint32_t> subtree)
    : binary_(std::move(binary)), rest_(std::move(rest)), index_(index), subtree_(std::move(subtree)) {}

void RelayChild::on_message(protocol::AgentMessage&& message) {
  if (std::holds_alternative<protocol::Heartbeat>(message)) {
    return;  // liveness of this link only (the session noted the time); the head watches its own links
  }
  if (std::holds_alternative<protocol::Relayed>(message) || std::holds_alternative<protocol::NodeLost>(message)) {
    upward_.push_back(protocol::encode(message));  // from further down: already named by its index
    return;
  }
  upward_.push_back(relayed(index_, protocol::encode(message)));
}

void RelayChild::pause(bool paused) {
  if (!done()) link_->pause(paused);
}

void RelayChild::send_frame(std::string_view head, std::string_view rest) {
  if (done() || !link_->ready()) return;  // the head sends into a subtree only after its nodes said Hello
  if (data_ && data_->failed() && data_->linked_once()) data_cut_ = true;
  if (data_cut_) return;  // until the head's SyncDataDrop: the child dropped what it had of this data
  if (data_ && data_->accepting()) return data_->queue_frame(head, rest);
  link_->queue_frame(head);
  link_->queue_frame(rest);
}

void RelayChild::flush() {
  if (data_) data_->flush();
  if (!done()) link_->flush();
}

void RelayChild::attach_data(std::unique_ptr<sync::DataOutbound> data) {
  data_ = std::move(data);
  data_cut_ = false;
}

void RelayChild::drop_data() {
  data_.reset();
  data_cut_ = false;
}

void RelayChild::cut_data() {
  if (!data_) return;
  data_cut_ = data_->linked_once();
  data_.reset();  // no end record: the child sees the link cut
}

void RelayChild::finish_data() {
  if (data_ && data_->linked()) data_->finish();
}

std::vector<std::string> RelayChild::take_upward() { return std::exchange(upward_, {}); }

}  // namespace muster::agent
