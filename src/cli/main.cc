#include <malloc.h>

#include "cli/command.h"

int main(int argc, char** argv) {
  // Sync and relay frames are 256 KiB+ strings made and freed in a loop. glibc would serve each from fresh
  // mmap'd or re-grown heap pages (trimmed back after every free), so every frame paid page faults and page
  // clearing: a third of an agent's CPU on a relay chain. Keep such blocks on the heap and keep the heap.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  return muster::cli::run_cli(argc, argv);
}
