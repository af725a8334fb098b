// StepFilesDir: where an agent keeps its workers' step files (step_sources.h: the hook's rings and the marker
// FIFO). They live only as long as their worker and are read once a second, so they belong in node-local memory,
// not in the job's state directory: on this VM's ext4, 16 agents making their workers' directories and FIFOs there
// at once added ~25 ms to a 150 ms start (metadata waits on the journal), and on an NFS home each would be a round
// trip to the server. The place, first usable of:
//   $XDG_RUNTIME_DIR/muster (systemd's per-user tmpfs), /dev/shm/muster-<uid> (tmpfs on every Linux), and the
//   `fallback` (the job's state directory on the node) when neither is a directory of this user's alone;
// below it, a directory of this agent's own (a-<random>) with an flock held on its `.lock` for the agent's life.
// Made, the directories of agents that are gone (their lock free: killed, crashed) are removed, so nothing stays in
// memory for long (a look at most every 10 minutes, by one agent at a time: a thousand agents of virtual nodes start
// at once on one machine); this agent's goes when the StepFilesDir is destroyed.
#pragma once

#include <string>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::agent {

class StepFilesDir {
 public:
  // `runtime`: $XDG_RUNTIME_DIR (empty: unset); `shm`: the shared-memory directory (/dev/shm); `uid`: this user's.
  static StepFilesDir make(const std::string& runtime, const std::string& shm, uint32_t uid,
                           const std::string& fallback);
  StepFilesDir(StepFilesDir&& other) noexcept;
  StepFilesDir& operator=(StepFilesDir&& other) noexcept;
  ~StepFilesDir();

  const std::string& path() const { return path_; }
  bool in_memory() const { return !parent_.empty(); }

 private:
  void remove();
  StepFilesDir(std::string parent, std::string name, std::string path, posix::Fd lock)
      : parent_(std::move(parent)), name_(std::move(name)), path_(std::move(path)), lock_(std::move(lock)) {}
  std::string parent_, name_;  // parent_/name_: this agent's own directory (empty: the fallback, not ours to remove)
  std::string path_;
  posix::Fd lock_;
};

// Removes the a-* directories below `parent` whose .lock no process holds (their agents are gone).
void remove_abandoned_step_dirs(const std::string& parent);

}  // namespace muster::agent
