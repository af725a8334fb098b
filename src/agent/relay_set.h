// RelaySet: the children this agent starts below it in the relay tree (relay.h), as one part of the agent: it
// opens them on RelayOpen, passes Relay frames down to the children whose subtree a frame names (and hands the
// frame to this node when it names it too), sends what comes up to the head, and pauses the children while the
// head link is throttled (back-pressure down the tree).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "agent/guard.h"
#include "agent/head_link.h"
#include "agent/relay.h"
#include "posix/event_loop.h"
#include "protocol/codec.h"

namespace muster::agent {

class RelaySet {
 public:
  // `mine`: the frame (whole, encoded) of a Relay that names this node too (SyncOpen is passed on to the children
  // first, so the nodes of a chain scan together).
  RelaySet(posix::EventLoop& loop, HeadLink& head, Guard& guard, int heartbeat_ms, int heartbeat_timeout_ms,
           std::function<void(std::string_view frame)> mine);

  void open(const protocol::RelayOpen& open);
  void relay(const protocol::RelayView& message);
  void pause(bool paused);
  // Once per loop round: queued writes to the children, and what came up, to the head.
  void round();
  // Shutdown: each child is told to end; done() once all have.
  void shutdown();
  bool done() const;
  size_t size() const { return children_.size(); }
  // The head is gone: the children hear EOF and stop their workers, as this agent does.
  void clear() { children_.clear(); }

  // The direct data path (docs/agent-protocol.md section 8a; relay.h): SyncDataConnect opens a link to each child
  // it names and answers SyncDataLinked for each; SyncDataDrop sends that child's frames over ssh again.
  void connect_data(const protocol::SyncDataConnect& connect);
  void drop_data(uint32_t node);
  // This node's incoming link broke (its children's links are cut), ended cleanly (theirs end after what is
  // queued), or a new session starts (links closed, ssh for all).
  void cut_data();
  void finish_data();
  void reset_data();

 private:
  posix::EventLoop& loop_;
  HeadLink& head_;
  Guard& guard_;
  int heartbeat_ms_, heartbeat_timeout_ms_;
  std::function<void(std::string_view frame)> mine_;
  uint32_t data_session_ = 0;
  uint32_t self_index_ = 0;  // this node's index in the relay tree (RelayOpen::self)
  std::vector<std::unique_ptr<RelayChild>> children_;
};

}  // namespace muster::agent
