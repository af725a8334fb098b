#include "sync/content_hash.h"

#define XXH_INLINE_ALL  // header-only: the binary pushed to nodes must not need libxxhash there
#include <xxhash.h>

namespace muster::sync {

ContentHasher::ContentHasher() : state_(XXH3_createState()) { XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_)); }
ContentHasher::~ContentHasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void ContentHasher::update(std::string_view bytes) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), bytes.data(), bytes.size());
}

uint64_t ContentHasher::digest() const { return XXH3_64bits_digest(static_cast<XXH3_state_t*>(state_)); }

int64_t nanoseconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

FileIdentity identity_of(const struct stat& st) {
  return FileIdentity{static_cast<uint64_t>(st.st_size), nanoseconds(st.st_mtim), nanoseconds(st.st_ctim),
                      static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_dev)};
}

}  // namespace muster::sync
