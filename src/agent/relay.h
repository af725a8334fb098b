// The agent's half of a relay tree (docs/agent-protocol.md section 9): on RelayOpen the agent starts an agent on
// each of its children itself — over ssh from this node (the node-to-node ssh `muster setup ssh` gives), or on
// this machine for virtual nodes — and becomes that agent's head: it answers its binary upload with its own
// executable, sends it heartbeats, passes it the part of the tree below it, forwards Relay frames for its subtree
// down and passes whatever comes up to its own head: the child's own messages as Relayed{child's index}, those of
// nodes further down as they are. Data for many nodes thus leaves the real head once and crosses each link once
// (`muster sync` on a chain), and the head holds a connection to a few nodes only (`muster launch --fanout`).
//
// A RelayChild is one child: a connection::SupervisedSession (the same rules of supervision as the head's pool:
// one restart, connect deadline, heartbeats, look again before judging) plus the tree's bookkeeping. What comes
// up is returned as frames for the head.
//
// During a sync the frames for the child can go over a direct data link instead (sync/data_outbound.h, section 8a
// of the protocol): attach_data() gives it one; once linked, every frame for the child takes it. A link that
// breaks drops what is sent for the child until drop_data() (the head's SyncDataDrop, sent once it heard that the
// child dropped its files in flight): from then on, frames go over ssh again, so the child never sees the middle of
// a file it already dropped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "connection/supervised_session.h"
#include "posix/event_loop.h"
#include "protocol/messages.h"
#include "sync/data_outbound.h"
#include "transport/transport.h"

namespace muster::agent {

class RelayChild {
 public:
  // Starts the agent of entry `child` of `open` (one whose parent is open.self). An error (for a NodeLost
  // upward) if it cannot start.
  static Result<std::unique_ptr<RelayChild>> start(const protocol::RelayOpen& open, size_t child,
                                                   posix::EventLoop& loop, int heartbeat_ms, int heartbeat_timeout_ms);

  uint32_t index() const { return index_; }
  // The child's index and every index below it: a Relay frame is forwarded when it names any of them.
  const std::vector<uint32_t>& subtree() const { return subtree_; }

  // Queues an encoded head message for the child, given in two parts (a header and the rest) that are sent as
  // one frame; flush() writes what is queued (once per loop round, so small frames share a write).
  void send_frame(std::string_view head, std::string_view rest);
  void flush();
  // Stops (or resumes) reading from the child while this agent cannot send more to its own head.
  void pause(bool paused);
  // Frames for the head (Relayed, NodeLost; already encoded) since the last call.
  std::vector<std::string> take_upward();
  bool failed() const { return link_->failed(); }
  // The child was told to shut down: its connection closing is its end, not a loss.
  void expect_end() { link_->expect_end(); }
  // Closed (lost, or ended after expect_end()): nothing more will come from it.
  bool done() const { return link_->failed() || link_->ended(); }
  // The process group of the transport (the ssh client or the local agent), for the agent's guard.
  int transport_pgid() const { return link_->transport_pgid(); }

  // The direct data path: the link being opened or open; the child's frames take it once it is linked.
  void attach_data(std::unique_ptr<sync::DataOutbound> data);
  sync::DataOutbound* data() { return data_.get(); }
  // Frames for the child go over ssh from now on (SyncDataDrop, a new session, a link that never came up).
  void drop_data();
  // This node's own incoming link broke: the child's link closes without its end record (the child drops its
  // files in flight and tells the head), and frames for it are dropped until drop_data().
  void cut_data();
  // What is queued for the child, then the end of the link (the session's data is over).
  void finish_data();

 private:
  RelayChild(transport::SelfBinary binary, protocol::RelayOpen rest, uint32_t index, std::vector<uint32_t> subtree);
  void on_message(protocol::AgentMessage&& message);

  transport::SelfBinary binary_;
  protocol::RelayOpen rest_;  // the tree below the child, passed on once it is ready
  uint32_t index_;
  std::vector<uint32_t> subtree_;
  std::unique_ptr<transport::Transport> transport_;
  std::unique_ptr<connection::SupervisedSession> link_;
  std::vector<std::string> upward_;
  std::unique_ptr<sync::DataOutbound> data_;
  bool data_cut_ = false;  // frames for the child are dropped (cut_data(), or its link broke) until drop_data()
};

// The part of `open` below entry `child`: every entry that descends from it, with `self` = its index.
protocol::RelayOpen subtree_open(const protocol::RelayOpen& open, size_t child);

}  // namespace muster::agent
