// The options of `muster sync` turned into a head::SyncRequest, and one sync run over a connected pool with its
// progress line and summary: shared by `muster sync` and `muster launch --sync`.
#pragma once

#include <string>
#include <vector>

#include "cli/node_pool.h"
#include "head/agent_pool.h"
#include "head/sync_push.h"
#include "util/result.h"

namespace muster::cli {

struct SyncFlags {
  std::string source;
  std::string to;  // empty: the source's absolute path
  std::vector<std::string> excludes;
  std::vector<std::string> exclude_from;
  bool delete_extraneous = false;
  bool dry_run = false;
  bool no_compress = false;
  bool quiet = false;
  std::string fanout = "auto";  // star, chain, or auto (chain from 3 ssh nodes on, star if it cannot be built)
};

// Absolute, normalized paths; exclude patterns and files parsed (errors name the file and line).
Result<head::SyncRequest> make_sync_request(const SyncFlags& flags);

// Runs the sync, prints the progress line on a terminal (stderr) and the summary or dry-run listing (stdout;
// the summary only when `verbose`). Fails when any node's copy is not identical.
Result<head::SyncReport> run_sync_on_pool(head::AgentPool& pool, const std::vector<std::string>& names,
                                          const head::SyncRequest& request, bool verbose);

// Connects to the nodes the flags select (only the first one for a relay chain, whose other agents the chain
// starts), syncs, and shuts the agents down. With fanout `auto`, a chain that cannot be built (nodes that cannot
// ssh to each other) falls back to a star, saying so on stderr. `names` gets every node's name.
Result<head::SyncReport> sync_to_hosts(const PoolFlags& pool_flags, head::SyncRequest request,
                                       const std::string& fanout, bool verbose, std::vector<std::string>& names);

}  // namespace muster::cli
