// XXH3-64 computed as the bytes go by: sync's content hash (sync/content_hash.h), doctor's tree hash, the build id
// of muster's own executable. Owns its xxhash state (created and freed here, never by hand); xxhash is compiled
// into util/xxh3.cc alone (XXH_INLINE_ALL: the binary pushed to nodes must not need libxxhash there). Pure.
#pragma once

#include <cstdint>
#include <string_view>

namespace muster {

class Xxh3Hasher {
 public:
  Xxh3Hasher();
  ~Xxh3Hasher();
  Xxh3Hasher(const Xxh3Hasher&) = delete;
  Xxh3Hasher& operator=(const Xxh3Hasher&) = delete;

  void update(std::string_view bytes);
  // The hash of every byte given so far (more may follow).
  uint64_t digest() const;

 private:
  void* state_;  // XXH3_state_t
};

}  // namespace muster
