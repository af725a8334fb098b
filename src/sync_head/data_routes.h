// DataRoutes: the head's side of sync's direct data path for one session (docs/agent-protocol.md section 8a). The
// control stays on ssh; the bulk — SyncPrepare, SyncFile, SyncData, SyncCommit — goes over TCP, hop by hop down
// the pool's tree: the head to the nodes it connects to, each relaying agent to its children.
//
// start() makes the session's secret and sends every live node SyncDataListen (over ssh); as their ports come back
// (SyncDataReady), the head opens its own links (sync/data_outbound.h) and asks every relaying node to open its
// children's (SyncDataConnect, answered per child by SyncDataLinked). settled() once every link is up or known not
// to be; a link that cannot be made leaves that hop on ssh and is a note saying which node could not open TCP to
// which, and why (a firewall, a node without the port open: doctor's tcp-mesh finding).
//
// send() then routes a frame for some nodes: per connection of the head, over its data link when that is up, else
// through the pool (ssh); each relaying agent makes the same choice for its children. A node whose incoming link
// broke (SyncDataLost: it dropped the files it was receiving) is routed over ssh from then on (the head closes its
// own link to it, or tells its parent: SyncDataDrop, sent the way the data goes so that it arrives before anything
// sent after it); the owner sends it its unfinished files again. It never decides what is sent: that is the
// Pusher's (sync_push.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "head/agent_pool.h"
#include "protocol/messages.h"
#include "sync/data_crypto.h"
#include "sync/data_outbound.h"

namespace muster::sync_head {

struct DataPathOptions {
  sync::DataCipher cipher = sync::DataCipher::aes128_gcm;
  uint32_t streams = 1;       // TCP streams per hop
  int timeout_ms = 10'000;    // to open and authenticate a hop's streams
};

class DataRoutes {
 public:
  DataRoutes(head::AgentPool& pool, uint32_t session, DataPathOptions options);

  // Sends SyncDataListen to every live node.
  void start();
  // A message from `node` that belongs to the data path (consumed: true). `lost` gets a node whose incoming link
  // broke, with why (the owner sends that node its unfinished files again).
  bool on_message(size_t node, const protocol::AgentMessage& message, std::vector<std::pair<size_t, std::string>>& lost);
  // The node was lost (its subtree too, as the pool tells): nothing more is waited for from it.
  void on_node_lost(size_t node);
  bool settled() const;
  // Hops still waiting for an answer stay on ssh, with `why`.
  void give_up_waiting(const std::string& why);
  // What the user should know: each hop that stayed on ssh, and why.
  const std::vector<std::string>& notes() const { return notes_; }
  // Whether every hop from the head to `node` is a data link (its data never crosses ssh).
  bool direct_to(size_t node) const;
  size_t direct_hops() const;  // links up

  // The data phase: a frame for `nodes` (alive), per connection of the head over its link or the pool. Returns the
  // number of the head's connections it went out on.
  size_t send(const std::vector<size_t>& nodes, std::string_view frame);
  // The same for a SyncData whose bytes are given apart (`header` from protocol::encode_sync_data_header): sealed
  // from them directly, or (plaintext) sent from the file with sendfile when `file` is set. Returns the connections
  // it went out on over the data path; nodes whose connection is not a data link are left in `over_ssh` for the
  // caller, which sends them the whole frame.
  struct DataChunk {
    std::string_view header;
    std::string_view bytes;             // the SyncData's bytes; or, with `file`, none:
    std::shared_ptr<posix::Fd> file;    // `length` bytes of it from `offset`
    uint64_t offset = 0;
    size_t length = 0;
  };
  size_t send_data(const std::vector<size_t>& nodes, const DataChunk& chunk, std::vector<size_t>& over_ssh);
  // Whether a SyncData for `nodes` could go with sendfile (plaintext, and every connection it takes is a data link).
  bool can_send_file(const std::vector<size_t>& nodes) const;
  // `node` stays on ssh from now on (its link broke or stalled): the head's link closes, or its parent is told.
  void route_over_ssh(size_t node, const std::string& why);
  // The end of the session's data: each of the head's links ends after what is queued (each node passes the end on).
  void finish();
  // Bytes the head's links still hold.
  size_t queued() const;
  void flush();

 private:
  struct Hop {  // the link into a node
    enum class State { idle, listening, connecting, up, ssh } state = State::idle;
    int port = 0;
    std::unique_ptr<sync::DataOutbound> out;  // the head's own, for a node it connects to
  };
  std::string address_of(size_t node) const;
  void connect_ready();
  void on_linked(size_t node, const std::string& error);
  void note_ssh(size_t node, const std::string& why);
  size_t queue_to(size_t root, const std::vector<size_t>& nodes, std::string_view frame);
  std::string hop_name(size_t node) const;  // "node3 -> node4" / "the head -> node1"

  head::AgentPool& pool_;
  uint32_t session_;
  DataPathOptions options_;
  std::string secret_;
  std::vector<Hop> hops_;
  size_t waiting_ready_ = 0;
  bool connect_sent_ = false;
  std::vector<std::string> notes_;
  std::vector<std::unique_ptr<sync::DataOutbound>> retired_;  // closed links, destroyed outside their callbacks
};

}  // namespace muster::sync_head
