// How this process's allocator treats large blocks.
#pragma once

namespace muster::posix {

// Sync and relay frames are 256 KiB+ strings made and freed in a loop. glibc would serve each from fresh mmap'd
// or re-grown heap pages (trimmed back after every free), so every frame paid page faults and page clearing: a
// third of an agent's CPU on a relay chain. This keeps such blocks on the heap and keeps the heap (mallopt).
void keep_freed_frame_memory();

}  // namespace muster::posix
