// How this process's allocator treats large blocks, and how much memory it has held.
#pragma once

#include <cstdint>

namespace muster::posix {

// Sync and relay frames are 256 KiB+ strings made and freed in a loop. glibc would serve each from fresh mmap'd
// or re-grown heap pages (trimmed back after every free), so every frame paid page faults and page clearing: a
// third of an agent's CPU on a relay chain. This keeps such blocks on the heap and keeps the heap (mallopt).
void keep_freed_frame_memory();

// The most resident memory this process has held so far, in bytes (getrusage's ru_maxrss); 0 if unknown.
uint64_t peak_resident_bytes();

}  // namespace muster::posix
