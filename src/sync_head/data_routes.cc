#include "sync_head/data_routes.h"

#include <algorithm>

#include <fmt/core.h>

#include "protocol/codec.h"
#include "protocol/hops.h"

namespace muster::sync_head {

DataRoutes::DataRoutes(head::AgentPool& pool, uint32_t session, DataPathOptions options)
    : pool_(pool), session_(session), options_(options), hops_(pool.size()) {}

std::string DataRoutes::hop_name(size_t node) const {
  size_t parent = pool_.parent_of(node);
  std::string from = parent == head::RelayTree::kHead ? "the head" : pool_.name(parent);
  return fmt::format("{} -> {}", from, pool_.name(node));
}

// The address the node's own ssh connection reached it on (its Hello: SSH_CONNECTION's server address): the one
// address its parent is known to reach. A local agent (virtual nodes) has none: loopback.
std::string DataRoutes::address_of(size_t node) const {
  const auto& hello = pool_.hello(node);
  return hello.ssh_addr.empty() ? "127.0.0.1" : hello.ssh_addr;
}

void DataRoutes::start() {
  secret_ = sync::random_bytes(sync::kSecretBytes);
  protocol::SyncDataListen listen{session_, static_cast<uint8_t>(options_.cipher), options_.streams, secret_,
                                  static_cast<uint32_t>(options_.timeout_ms * 2)};
  std::string frame = protocol::encode(protocol::HeadMessage{listen});
  for (size_t node = 0; node < hops_.size(); ++node) {
    if (!pool_.alive(node)) continue;
    if (std::find(pool_.hello(node).capabilities.begin(), pool_.hello(node).capabilities.end(), "sync-direct") ==
        pool_.hello(node).capabilities.end()) {
      note_ssh(node, "its agent has no direct data path");
      continue;
    }
    hops_[node].state = Hop::State::listening;
    ++waiting_ready_;
    pool_.queue_frame_to({node}, frame);
  }
  if (waiting_ready_ == 0) connect_ready();
}

void DataRoutes::note_ssh(size_t node, const std::string& why) {
  auto& hop = hops_[node];
  if (hop.out) retired_.push_back(std::move(hop.out));
  if (hop.state == Hop::State::ssh) return;
  hop.state = Hop::State::ssh;
  notes_.push_back(fmt::format("{}: {}; {} gets its data over ssh", hop_name(node), why, pool_.name(node)));
}

bool DataRoutes::on_message(size_t node, const protocol::AgentMessage& message,
                            std::vector<std::pair<size_t, std::string>>& lost) {
  if (const auto* ready = std::get_if<protocol::SyncDataReady>(&message)) {
    auto& hop = hops_[node];
    if (ready->session != session_ || hop.state != Hop::State::listening) return true;
    --waiting_ready_;
    if (ready->error.empty()) {
      hop.port = static_cast<int>(ready->port);
      hop.state = Hop::State::connecting;
    } else {
      note_ssh(node, fmt::format("{} cannot listen for it: {}", pool_.name(node), ready->error));
    }
    if (waiting_ready_ == 0) connect_ready();
    return true;
  }
  if (const auto* linked = std::get_if<protocol::SyncDataLinked>(&message)) {
    if (linked->session == session_ && linked->node < hops_.size() && pool_.parent_of(linked->node) == node) {
      on_linked(linked->node, linked->error);
    }
    return true;
  }
  if (const auto* gone = std::get_if<protocol::SyncDataLost>(&message)) {
    if (gone->session == session_ && hops_[node].state == Hop::State::up) {
      lost.emplace_back(node, gone->why);
      route_over_ssh(node, gone->why);
    }
    return true;
  }
  return false;
}

// Every node answered SyncDataListen: the head opens its links, each relaying node its children's.
void DataRoutes::connect_ready() {
  if (connect_sent_) return;
  connect_sent_ = true;
  sync::DataLinkParams params{session_, options_.cipher, options_.streams, secret_, options_.timeout_ms};
  std::map<size_t, protocol::SyncDataConnect> by_parent;
  for (size_t node = 0; node < hops_.size(); ++node) {
    if (hops_[node].state != Hop::State::connecting) continue;
    size_t parent = pool_.parent_of(node);
    if (parent == head::RelayTree::kHead) {
      hops_[node].out = sync::DataOutbound::connect(
          pool_.loop(), address_of(node), hops_[node].port, params,
          [this, node](const std::string& error) { on_linked(node, error); }, nullptr);
      continue;
    }
    auto& connect = by_parent[parent];
    connect.session = session_;
    connect.cipher = static_cast<uint8_t>(options_.cipher);
    connect.streams = options_.streams;
    connect.secret = secret_;
    connect.timeout_ms = static_cast<uint32_t>(options_.timeout_ms);
    connect.nodes.push_back(static_cast<uint32_t>(node));
    connect.hosts.push_back(address_of(node));
    connect.ports.push_back(static_cast<uint32_t>(hops_[node].port));
  }
  for (auto& [parent, connect] : by_parent) {
    if (!pool_.alive(parent)) continue;
    pool_.queue_frame_to({parent}, protocol::encode(protocol::HeadMessage{connect}));
  }
}

void DataRoutes::on_linked(size_t node, const std::string& error) {
  auto& hop = hops_[node];
  if (hop.state != Hop::State::connecting) return;
  if (error.empty()) {
    hop.state = Hop::State::up;
    return;
  }
  note_ssh(node, error);
}

void DataRoutes::on_node_lost(size_t node) {
  auto& hop = hops_[node];
  if (hop.state == Hop::State::listening && waiting_ready_ > 0) {
    --waiting_ready_;
    hop.state = Hop::State::idle;
    if (waiting_ready_ == 0) connect_ready();
  } else if (hop.state == Hop::State::connecting) {
    hop.state = Hop::State::idle;
  }
  if (hop.out) retired_.push_back(std::move(hop.out));
}

bool DataRoutes::settled() const {
  return connect_sent_ && std::none_of(hops_.begin(), hops_.end(), [](const auto& hop) {
           return hop.state == Hop::State::listening || hop.state == Hop::State::connecting;
         });
}

void DataRoutes::give_up_waiting(const std::string& why) {
  connect_sent_ = true;
  for (size_t node = 0; node < hops_.size(); ++node) {
    auto state = hops_[node].state;
    if (state == Hop::State::listening || state == Hop::State::connecting) note_ssh(node, why);
  }
}

bool DataRoutes::direct_to(size_t node) const {
  for (size_t at = node; at != head::RelayTree::kHead; at = pool_.parent_of(at)) {
    if (hops_[at].state != Hop::State::up) return false;
  }
  return true;
}

size_t DataRoutes::direct_hops() const {
  return static_cast<size_t>(
      std::count_if(hops_.begin(), hops_.end(), [](const auto& hop) { return hop.state == Hop::State::up; }));
}

void DataRoutes::route_over_ssh(size_t node, const std::string& why) {
  auto& hop = hops_[node];
  if (hop.state != Hop::State::up) return;
  size_t parent = pool_.parent_of(node);
  note_ssh(node, fmt::format("the data link broke ({})", why));
  if (parent != head::RelayTree::kHead && pool_.alive(parent)) {
    // The way the data goes, so that the parent switches before anything sent after this reaches it.
    send({parent}, protocol::encode(protocol::HeadMessage{protocol::SyncDataDrop{session_, static_cast<uint32_t>(node)}}));
  }
}

// `nodes` all hang under `root`: one plain frame when it is `root` alone, else one Relay; over the head's link
// to `root` when it is up, else through the pool.
size_t DataRoutes::queue_to(size_t root, const std::vector<size_t>& nodes, std::string_view frame) {
  auto& hop = hops_[root];
  if (!(hop.state == Hop::State::up && hop.out && hop.out->accepting())) return pool_.queue_frame_to(nodes, frame);
  if (nodes.size() == 1 && nodes[0] == root) {
    hop.out->queue_frame(frame);
  } else {
    std::vector<uint32_t> indices(nodes.begin(), nodes.end());
    hop.out->queue_frame(protocol::encode_relay_header(protocol::hop_mask(indices), frame.size()), frame);
  }
  return 1;
}

size_t DataRoutes::send(const std::vector<size_t>& nodes, std::string_view frame) {
  std::map<size_t, std::vector<size_t>> by_root;
  for (size_t node : nodes) {
    if (pool_.alive(node)) by_root[pool_.root_of(node)].push_back(node);
  }
  size_t connections = 0;
  for (const auto& [root, below] : by_root) connections += queue_to(root, below, frame);
  return connections;
}

bool DataRoutes::can_send_file(const std::vector<size_t>& nodes) const {
  if (options_.cipher != sync::DataCipher::plain || nodes.empty()) return false;
  return std::all_of(nodes.begin(), nodes.end(), [&](size_t node) {
    const auto& hop = hops_[pool_.root_of(node)];
    return hop.state == Hop::State::up && hop.out && hop.out->accepting();
  });
}

size_t DataRoutes::send_data(const std::vector<size_t>& nodes, const DataChunk& chunk, std::vector<size_t>& over_ssh) {
  std::map<size_t, std::vector<size_t>> by_root;
  for (size_t node : nodes) {
    if (pool_.alive(node)) by_root[pool_.root_of(node)].push_back(node);
  }
  size_t connections = 0;
  size_t length = chunk.file ? chunk.length : chunk.bytes.size();
  for (const auto& [root, below] : by_root) {
    auto& hop = hops_[root];
    if (!(hop.state == Hop::State::up && hop.out && hop.out->accepting())) {
      over_ssh.insert(over_ssh.end(), below.begin(), below.end());
      continue;
    }
    std::string head;
    if (!(below.size() == 1 && below[0] == root)) {
      std::vector<uint32_t> indices(below.begin(), below.end());
      head = protocol::encode_relay_header(protocol::hop_mask(indices), chunk.header.size() + length);
    }
    head.append(chunk.header);
    if (chunk.file) {
      hop.out->queue_file_frame(head, chunk.file, chunk.offset, length);
    } else {
      hop.out->queue_frame(head, chunk.bytes);
    }
    ++connections;
  }
  return connections;
}

void DataRoutes::finish() {
  for (auto& hop : hops_) {
    if (hop.out) hop.out->finish();
  }
}

size_t DataRoutes::queued() const {
  size_t total = 0;
  for (const auto& hop : hops_) total += hop.out ? hop.out->queued() : 0;
  return total;
}

void DataRoutes::flush() {
  for (auto& hop : hops_) {
    if (hop.out) hop.out->flush();
  }
  retired_.clear();  // (never inside a link's own callback: flush runs from the owner's round)
}

}  // namespace muster::sync_head
