// The node side of `muster sync` (docs/agent-protocol.md, section 6): the agent hands every sync frame from
// the head to its Receiver and sends back the replies it returns. One session at a time; a SyncOpen starts a
// new one (abandoning the old).
//
//   SyncOpen    -> scans the destination (exclude rules, hash cache) and answers with SyncManifest parts;
//                  removes leftover temporary files of an interrupted sync (unless dry run). With
//                  kSyncDigestFirst: answers with SyncDigest (sync/plan.h plan_digest) and holds the manifest;
//   SyncSendManifest -> the held manifest's SyncManifest parts (an error part when none is held).
//   SyncPrepare -> deletes what the head says (children first), makes directories; SyncStepDone.
//   SyncFile    -> opens `.<name>.muster-tmp-<pid>-<file>` next to the destination file (a SyncFile for a file
//                  still in flight starts it again: the head sends a file again from its start);
//   SyncData    -> appends (decompressing zstd), hashing as it goes; SyncAck progress. When the declared size is
//                  reached the hash is checked and, only if it matches, the file gets its mode and mtime and is
//                  renamed over the destination path: SyncAck done (or corrupt, with the temporary removed: the
//                  head may send it again; failed for any other reason).
//   SyncCommit  -> symlinks, metadata of unchanged files, directories' metadata, saves the hash cache;
//                  SyncStepDone.
// Destruction (the head is gone, the agent exits) removes the temporary file of a file still in flight, so an
// interrupted sync leaves every destination path either as it was or complete.
#pragma once

#include <memory>
#include <vector>

#include "protocol/codec.h"
#include "protocol/messages.h"

namespace muster::sync {

class Receiver {
 public:
  Receiver();
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  // Whether `message` is a sync frame (the agent routes those here).
  static bool handles(const protocol::HeadMessage& message);
  std::vector<protocol::AgentMessage> handle(const protocol::HeadMessage& message);
  // A SyncData whose bytes are a view into the frame it came in (no copy on the way to the file).
  std::vector<protocol::AgentMessage> handle_data(const protocol::SyncDataView& data);
  // The data link these files came over broke (sync/data_inbound.h): the files in flight are dropped, temporaries
  // removed; the head sends them again from their start.
  void abandon_incoming();

 private:
  struct Session;
  std::unique_ptr<Session> session_;
};

}  // namespace muster::sync
