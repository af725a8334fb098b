// What the last complete `muster sync` of a source to a destination on a set of nodes left there: the digest of
// the source it copied (sync/plan.h plan_digest). `--fanout auto` reads it before connecting: when the source's
// digest is still that one, the nodes most likely hold it already (a no-op, or a repair of what changed on a
// node), nothing is worth relaying, and the star answers sooner than a chain, whose ssh hops from node to node
// start one after the other (8 nodes on the testbed: 0.15 s instead of 0.20 s). The record only ever picks the
// fanout; what is copied is decided by the nodes' own digests, so a stale or forged record costs time, never a
// file: and when the star finds a node that needs more than 32 MB (a node wiped since), it sends nothing and
// run_sync takes the chain after all (SyncRequest::star_limit_bytes). It sits next to the source's hash cache (sync/hash_cache.h) and is not written when that has no directory.
#pragma once

#include <string>
#include <vector>

#include "sync_head/sync_push.h"

namespace muster::sync_head {

// The record's file for this request and these nodes (their names, in any order); empty without a cache directory.
std::string last_sync_path(const SyncRequest& request, std::vector<std::string> nodes);

// Whether the record at `path` holds `digest` (false when there is none, or it cannot be read).
bool same_as_last_sync(const std::string& path, const std::string& digest);

// Records `digest` (in hex) after a sync that left every node identical; failures are ignored (the next run is a
// chain).
void remember_last_sync(const std::string& path, const std::string& digest);

}  // namespace muster::sync_head
