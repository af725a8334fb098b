#include "posix/memory.h"

#include <malloc.h>

namespace muster::posix {

void keep_freed_frame_memory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

}  // namespace muster::posix
