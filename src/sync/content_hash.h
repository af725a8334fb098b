// The content hash of sync (XXH3-64, util/xxh3.h), computed as bytes go by, and the identity of a file that the
// hash cache keys on. Shared by the source scan and the node's receiver so both hash exactly alike.
#pragma once

#include "posix/dir.h"
#include "sync/hash_cache.h"
#include "util/xxh3.h"

namespace muster::sync {

// Sync's content hash is XXH3-64: one name for it, so the scan and the receiver cannot drift apart.
using ContentHasher = Xxh3Hasher;

FileIdentity identity_of(const posix::FileStat& st);

}  // namespace muster::sync
