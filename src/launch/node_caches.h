// `muster launch --node-local-caches`: every node's job writes its caches (Hugging Face, torch, Triton, ~/.cache:
// doctor/node/cache_dirs.h) into a directory of its own on that node, so nodes that share a filesystem (an NFS home)
// never write one cache at once.
//
// The directory is chosen and made on the node, in the node's view: `muster node cache-dir` (run on every node
// before the job, like the preflight's commands) makes `<base>/<the node's host name>`, base defaulting to
// /tmp/muster-cache-<the node's uid>, and prints it; the head then sets the job's cache variables per node
// (worker_env.h). Made there because a cache path valid everywhere could not be safe: a directory in /tmp that
// another user made first (or a symlink there) would let that user plant files in the caches (torch extensions
// and Triton kernels are loaded as code). So each directory is created 0700 and refused unless it is a real
// directory owned by this user that no one else can write (never through a symlink); the host name below the
// base keeps nodes apart even if the base itself is shared.
#pragma once

#include <string>
#include <vector>

#include "head/agent_pool.h"
#include "launch/rank_env.h"
#include "util/result.h"

namespace muster::launch {

// Node side: makes (or checks) the directory and returns its path. `base` empty: /tmp/muster-cache-<uid>.
Result<std::string> make_node_cache_dir(const std::string& base);

// `muster node cache-dir` (a node operation, head/node_op.h): make_node_cache_dir, the path printed.
struct CacheDirOp {
  static constexpr const char* kName = "cache-dir";
  static constexpr const char* kHelp = "make this node's private cache directory for `launch --node-local-caches` "
                                       "and print it";
  std::string base;  // "" = /tmp/muster-cache-<uid>
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.base, "--base", "the directory (default /tmp/muster-cache-<uid>)");
  }
  static Result<int> run(const CacheDirOp& op);
  bool operator==(const CacheDirOp&) const = default;
};

// The job's cache variables for a node whose directory is `dir`: HF_HOME, HF_DATASETS_CACHE, TORCH_HOME,
// TORCH_EXTENSIONS_DIR, TRITON_CACHE_DIR, XDG_CACHE_HOME, and the hub-cache variables the user set (they would
// otherwise win over HF_HOME). Sorted by name.
EnvList node_cache_env(const std::string& dir, const EnvList& propagated);

// Head side: runs `muster node cache-dir` on every node of `pool`; the environment for each node, in pool order.
// An error names the node and what it said.
Result<std::vector<EnvList>> prepare_node_caches(head::AgentPool& pool, const std::vector<std::string>& names,
                                                 const std::string& base, const EnvList& propagated);

}  // namespace muster::launch
