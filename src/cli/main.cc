#include "cli/command.h"
#include "posix/limits.h"
#include "posix/memory.h"

int main(int argc, char** argv) {
  muster::posix::keep_freed_frame_memory();
  // Head and agent alike: big jobs need more descriptors than Debian's default soft limit (posix/limits.h).
  muster::posix::raise_open_file_limit();
  return muster::cli::run_cli(argc, argv);
}
