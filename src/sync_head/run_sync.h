// `muster sync` as the user asks for it (the flags' options), turned into a SyncRequest and run: connects to the
// selected nodes (through a relay chain or tree: head/agent_pool.h), syncs with a
// progress line on a terminal (stderr) and the summary or dry-run listing (stdout), and shuts the agents down.
// The entry point of `muster sync`, and of `muster launch --sync` before a job.
#pragma once

#include <string>
#include <vector>

#include "head/connect.h"
#include "sync_head/sync_push.h"
#include "util/result.h"

namespace muster::sync_head {

struct SyncOptions {
  head::ConnectOptions connect;
  std::string source;
  std::string to;  // empty: the source's absolute path
  std::vector<std::string> excludes;
  std::vector<std::string> exclude_from;
  bool delete_extraneous = false;
  bool dry_run = false;
  bool no_compress = false;
  bool fresh_destination = false;  // `to` must be made by this sync, private (image push's stage: sync_push.h)
  std::string links;            // keep, copy-target, skip; empty: ask when needed (source_scan.h)
  bool quiet = false;           // no summary when every node ends up identical
  // star, chain, a number (a tree of that fanout), or auto (chain from 3 ssh nodes on; a node the chain cannot
  // reach is reached from the head; the star when the source is unchanged since the last sync: last_sync.h)
  std::string fanout = "auto";
};

// Absolute, normalized paths; exclude patterns and files parsed (errors name the file and line).
Result<SyncRequest> make_sync_request(const SyncOptions& options);

// With fanout `auto`, a node the chain cannot start (nodes that cannot ssh to each other) is reached from the head,
// saying so on stderr; another fanout that cannot be built is an error. Fails when any node's copy is not
// identical (after printing the summary).
Result<SyncReport> run_sync(const SyncOptions& options);

}  // namespace muster::sync_head
