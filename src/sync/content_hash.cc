#include "sync/content_hash.h"

namespace muster::sync {

FileIdentity identity_of(const posix::FileStat& st) {
  return FileIdentity{st.size, st.mtime_ns, st.ctime_ns, st.inode, st.device};
}

}  // namespace muster::sync
