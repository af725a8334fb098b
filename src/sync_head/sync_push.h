// `muster sync` from the head's side: makes a directory tree identical at one path on every node of a pool
// (docs/agent-protocol.md section 6; the node side is sync/receiver.h).
//
// 1. Scans the source (exclude rules, hash cache) and asks every agent for the digest of its destination's
//    manifest (sync/plan.h plan_digest); a node whose digest is the source's needs nothing, the others are asked
//    for their manifest.
// 2. Plans each node that sent its manifest (sync/plan.h). A dry run stops here.
// 3. Streams every file that some node needs once from disk, to all the nodes that need it, in chunks
//    (zstd-compressed when that pays), with a per-node window of unacknowledged bytes (sync/flow_window.h) so
//    memory and queues stay bounded and the slowest node sets the pace. Nodes verify each file's hash before
//    renaming it into place.
// 4. Commits (symlinks, metadata, directory times) and collects per-node results.
// A node that is lost or reports an error does not stop the others; its report says what happened (through a
// tree, a lost node takes the nodes it carried along). In a pool with a fanout (head/agent_pool.h) every file
// leaves the head once per connection and crosses each link once: a fanout of 1 is a relay chain.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "head/agent_pool.h"
#include "sync/exclude.h"
#include "sync/plan.h"
#include "sync_head/source_scan.h"

namespace muster::sync_head {

struct SyncRequest {
  std::string source;       // absolute local directory
  std::string destination;  // absolute directory on every node
  sync::ExcludeRules rules;
  bool delete_extraneous = false;
  bool dry_run = false;
  bool compress = true;
  bool fresh_destination = false;  // the destination must be a new private directory (protocol kSyncFreshRoot)
  LinkPolicy links = LinkPolicy::ask;  // what links that leave the tree become (source_scan.h)
  std::string cache_dir;            // hash cache of the source (empty: default)
  // Above 0: when some node needs more than this many bytes, nothing is sent, and the report says so
  // (over_star_limit): run_sync then takes the relay chain it had skipped for a source it thought the nodes held.
  uint64_t star_limit_bytes = 0;
};

struct NodeSyncReport {
  std::string error;        // empty: the node's copy is identical to the source
  std::vector<std::string> file_errors;  // files that failed (at most a few are kept)
  sync::SyncPlan plan;      // what was (or, in a dry run, would be) done
  uint64_t files_done = 0;  // files written and verified
  uint64_t bytes_done = 0;  // their bytes
  uint64_t wire_bytes = 0;  // bytes of file data sent to this node (after compression)
  int64_t finished_ms = 0;  // since the start of the transfer
  bool ok() const { return error.empty() && file_errors.empty(); }
};

struct SyncReport {
  std::string destination;  // the request's
  uint64_t source_entries = 0, source_files = 0, source_bytes = 0;
  uint64_t source_hardlinks = 0;  // names of files that have another name earlier in the tree
  SourceLinks links;              // what became of the links that leave the tree
  uint64_t hashed_bytes = 0;  // source bytes read to hash (0 when the cache knew every file)
  int64_t scan_ms = 0;        // source scan + destination manifests
  int64_t transfer_ms = 0;    // first file byte to last commit
  uint64_t unique_bytes = 0;  // bytes read from the source to send (each file once, whatever the node count)
  uint64_t head_wire_bytes = 0;  // file data the head wrote to its connections (star: once per node; chain: once)
  size_t tree_depth = 1;         // 1: the star; the node count, over one connection: a chain (the pool's depth())
  size_t head_connections = 0;   // the pool's connections()
  uint64_t over_star_limit = 0;  // the bytes of the node that needs most, when above star_limit_bytes (then no
                                 // file was sent and nothing changed)
  std::vector<NodeSyncReport> nodes;
  bool ok() const;
};

// What the progress display needs, sampled during the transfer.
struct SyncProgress {
  uint64_t total_bytes = 0;           // sum over nodes of the bytes each must receive
  std::vector<uint64_t> node_total;   // per node
  std::vector<uint64_t> node_done;    // per node, acknowledged
  int64_t elapsed_ms = 0;
};

using ProgressCallback = std::function<void(const SyncProgress&)>;

// Step 1's scan of the source (the hash cache loaded, used and saved), done before any node is connected: a
// source that cannot be synced changes nothing on the nodes, and run_sync chooses the fanout by its digest.
struct PreparedSource {
  ScannedSource scanned;
  std::string digest;  // sync::plan_digest of scanned.manifest, what a node's digest is compared with
  int64_t scan_ms = 0;
};
Result<PreparedSource> prepare_source(const SyncRequest& request);

// Fails only for the head's own reasons (interrupted); node problems are in the report, in the pool's node order.
// `progress` (may be empty) is called a few times per second during the transfer and once at the end.
Result<SyncReport> sync_to_nodes(head::AgentPool& pool, const SyncRequest& request, const PreparedSource& source,
                                 const ProgressCallback& progress);

}  // namespace muster::sync_head
