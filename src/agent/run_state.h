// How long the per-job state on a node lives ($XDG_STATE_HOME/muster/runs/<job>/<node>/, made by worker_setup.h:
// progress and error files, a stacks file per Python process, flight-recorder dumps of megabytes). On an NFS home
// every node of every job writes there, so it must not grow without bound:
//   - a job's directory goes when its agent ends, if no worker failed on that node and the head did not vanish
//     (the job ended well here: nothing in it is wanted any more);
//   - otherwise it stays, for `muster why`, the report and a look by hand, until pruned: when an agent first
//     prepares a job, directories untouched for 14 days go (any node's: on a shared home, nodes that never run
//     again have theirs pruned too), and of this node's own, only the 20 newest stay;
//   - a directory in use is never pruned: its agent holds an flock on `<dir>/.in-use` while it runs (the kernel
//     drops it when the agent dies, so a crashed agent's directory ages out like any other);
//   - the look itself reads every job's directory (on a shared home: every node's, some thousands), so a node looks
//     at most every 10 minutes, one agent of that node name at a time: `runs/.pruned-<node>`'s mtime says when it
//     last did, and its flock who is looking (1,024 virtual nodes on one machine spent seconds on it at every start).
// entries_to_prune is the pure policy; RunStateDir holds one directory's lock and prune_run_states applies it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::agent {

struct PrunePolicy {
  int64_t max_age_ns = int64_t{14} * 24 * 3600 * 1'000'000'000;
  size_t keep_per_node = 20;
  int64_t every_ns = int64_t{600} * 1'000'000'000;  // a node looks at most this often
};

struct RunStateEntry {
  std::string job;
  std::string node;
  int64_t mtime_ns = 0;  // the node directory's
  bool in_use = false;   // its agent holds the lock
};

// The entries to remove (indices into `entries`): any not in use and older than the policy's age, and this
// node's (`node`) not in use beyond its newest keep_per_node.
std::vector<size_t> entries_to_prune(const std::vector<RunStateEntry>& entries, const std::string& node,
                                     int64_t now_ns, const PrunePolicy& policy = {});

// The name of the lock file in a job's node directory.
inline constexpr const char* kInUseFile = ".in-use";

// One job's directory on this node while the agent uses it: the flock on its kInUseFile held from take() until
// this is destroyed or remove() removes the directory.
class RunStateDir {
 public:
  // `runs` is the runs directory, `job` and `node` the components below it (already made, private).
  static Result<RunStateDir> take(const std::string& runs, const std::string& job, const std::string& node);
  // Removes the directory (and the job's directory, once no node's is left in it), if this holds its lock (an
  // agent of the same node name may use it too: then it stays, theirs).
  void remove();

 private:
  RunStateDir(std::string runs, std::string job, std::string node, posix::Fd lock, bool held)
      : runs_(std::move(runs)), job_(std::move(job)), node_(std::move(node)), lock_(std::move(lock)), held_(held) {}
  std::string runs_, job_, node_;
  posix::Fd lock_;
  bool held_ = false;
};

// Applies entries_to_prune to the directories below `runs` (never one whose lock a live agent holds), unless node
// `node` looked less than policy.every_ns ago or another of its agents is looking.
void prune_run_states(const std::string& runs, const std::string& node, int64_t now_ns,
                      const PrunePolicy& policy = {});

}  // namespace muster::agent
