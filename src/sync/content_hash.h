// The content hash of sync (XXH3-64), computed as bytes go by, and the identity of a file that the hash cache
// keys on. Shared by the source scan and the node's receiver so both hash exactly alike.
#pragma once

#include <cstdint>
#include <string_view>

#include "posix/dir.h"
#include "sync/hash_cache.h"

namespace muster::sync {

class ContentHasher {
 public:
  ContentHasher();
  ~ContentHasher();
  ContentHasher(const ContentHasher&) = delete;
  ContentHasher& operator=(const ContentHasher&) = delete;

  void update(std::string_view bytes);
  uint64_t digest() const;

 private:
  void* state_;  // XXH3_state_t (xxhash.h is compiled into one file only)
};

FileIdentity identity_of(const posix::FileStat& st);

}  // namespace muster::sync
