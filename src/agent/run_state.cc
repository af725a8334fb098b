#include "agent/run_state.h"

#include <algorithm>

#include "agent/look_turn.h"
#include "posix/dir.h"
#include "posix/file.h"

namespace muster::agent {

std::vector<size_t> entries_to_prune(const std::vector<RunStateEntry>& entries, const std::string& node,
                                     int64_t now_ns, const PrunePolicy& policy) {
  std::vector<size_t> prune;
  std::vector<size_t> own;  // this node's, not in use and young enough
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& entry = entries[i];
    if (entry.in_use) continue;
    if (now_ns - entry.mtime_ns > policy.max_age_ns) {
      prune.push_back(i);
    } else if (entry.node == node) {
      own.push_back(i);
    }
  }
  if (own.size() > policy.keep_per_node) {
    std::sort(own.begin(), own.end(),
              [&](size_t a, size_t b) { return entries[a].mtime_ns > entries[b].mtime_ns; });  // newest first
    prune.insert(prune.end(), own.begin() + static_cast<long>(policy.keep_per_node), own.end());
  }
  std::sort(prune.begin(), prune.end());
  return prune;
}

Result<RunStateDir> RunStateDir::take(const std::string& runs, const std::string& job, const std::string& node) {
  auto lock = posix::open_append(runs + "/" + job + "/" + node + "/" + kInUseFile, false, 0600);
  if (!lock) return lock.error();
  auto locked = posix::try_lock_exclusive(lock->get());  // held by another agent of the same node name: theirs
  return RunStateDir(runs, job, node, std::move(*lock), locked && *locked);
}

void RunStateDir::remove() {
  if (!held_) return;
  if (auto jobs = posix::Dir::open(runs_)) {
    if (auto job = jobs->open_dir(job_)) {
      (void)job->remove_tree(node_);
      (void)jobs->remove(job_, true);  // fails while another node's directory is in it: that is fine
    }
  }
  lock_.reset();
}

namespace {

// Whether an agent holds the lock of `dir` (a node directory): the lock file opened (never a FIFO: a node
// directory is the user's, but nothing here may block) and tried.
bool in_use(const posix::Dir& dir) {
  auto fd = dir.open_read(kInUseFile);
  if (!fd) return false;
  auto locked = posix::try_lock_exclusive(fd->get());
  return locked && !*locked;
}

}  // namespace

void prune_run_states(const std::string& runs, const std::string& node, int64_t now_ns, const PrunePolicy& policy) {
  auto turn = take_turn(runs + "/.pruned-" + node, now_ns, policy.every_ns);
  if (!turn) return;  // this node looked a moment ago, or another of its agents is looking
  auto jobs = posix::Dir::open(runs);
  if (!jobs) return;
  auto job_names = jobs->names();
  if (!job_names) return;
  std::vector<RunStateEntry> entries;
  for (const auto& job : *job_names) {
    if (job.starts_with(".pruned-")) {  // another node name's last look: gone with its age, as its state goes
      auto st = jobs->stat(job);
      if (st && *st && now_ns - (*st)->mtime_ns > policy.max_age_ns) (void)jobs->remove(job, false);
      continue;
    }
    auto job_dir = jobs->open_dir(job);
    if (!job_dir) continue;
    auto nodes = job_dir->names();
    if (!nodes) continue;
    for (const auto& name : *nodes) {
      auto st = job_dir->stat(name);
      if (!st || !*st || !(*st)->is_dir()) continue;
      // Whether it is in use matters only to an entry the policy may prune or count: an old one, or this node's.
      // Another node's young directory is one stat (on a shared home: hundreds of them, at every agent's start).
      bool relevant = now_ns - (*st)->mtime_ns > policy.max_age_ns || name == node;
      bool used = false;
      if (relevant) {
        auto node_dir = job_dir->open_dir(name);
        used = node_dir && in_use(*node_dir);
      }
      entries.push_back({job, name, (*st)->mtime_ns, used});
    }
  }
  for (size_t i : entries_to_prune(entries, node, now_ns, policy)) {
    auto job_dir = jobs->open_dir(entries[i].job);
    if (!job_dir) continue;
    auto node_dir = job_dir->open_dir(entries[i].node);
    if (node_dir && in_use(*node_dir)) continue;  // taken since the look
    (void)job_dir->remove_tree(entries[i].node);
    (void)jobs->remove(entries[i].job, true);  // once empty
  }
}

}  // namespace muster::agent
