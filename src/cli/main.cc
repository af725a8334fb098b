#include "cli/command.h"
#include "posix/memory.h"

int main(int argc, char** argv) {
  muster::posix::keep_freed_frame_memory();
  return muster::cli::run_cli(argc, argv);
}
