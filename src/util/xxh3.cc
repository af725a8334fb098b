#include "util/xxh3.h"

#include <new>

#define XXH_INLINE_ALL  // header-only: the binary pushed to nodes must not need libxxhash there
#include <xxhash.h>

namespace muster {

Xxh3Hasher::Xxh3Hasher() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}

Xxh3Hasher::~Xxh3Hasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void Xxh3Hasher::update(std::string_view bytes) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), bytes.data(), bytes.size());
}

uint64_t Xxh3Hasher::digest() const { return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_)); }

}  // namespace muster
