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

FileIdentity identity_of(const posix::FileStat& st) {
  return FileIdentity{st.size, st.mtime_ns, st.ctime_ns, st.inode, st.device};
}

}  // namespace muster::sync
