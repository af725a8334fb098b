// The cache directories a training job writes on a node, as the libraries compute them from the job's
// environment: Hugging Face (HF_HOME, HF_DATASETS_CACHE, HF_HUB_CACHE / TRANSFORMERS_CACHE), torch (TORCH_HOME,
// TORCH_EXTENSIONS_DIR), Triton (TRITON_CACHE_DIR) and ~/.cache itself (XDG_CACHE_HOME). On a filesystem that
// several nodes share (an NFS home), every node's job writes the same directories at once: the datasets cache
// and the torch extensions' build lock are known to break under that. doctor finds which are shared
// (checks/cache_sharing.h); `muster launch --node-local-caches` gives each node its own (launch/node_caches.h).
// Pure: the environment and the home directory come in.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace muster::doctor {

struct CacheDir {
  std::string name;   // the variable ("HF_DATASETS_CACHE"), or "XDG_CACHE_HOME" for ~/.cache
  std::string path;   // where the job writes it on this node
  bool set = false;   // the job's environment names it (else the library's default)
  std::string probe;  // the nearest existing directory at or above `path` (filled on the node)

  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.name, "name");
    visit(m.path, "path");
    visit(m.set, "set");
    visit(m.probe, "probe");
  }
};

// The variables the caches depend on (what the head passes to a node for the job).
const std::vector<std::string>& cache_variables();
// Whether `muster launch` passes the variable to the job by default (its HF_/TRANSFORMERS_/TORCH_ prefixes):
// doctor then uses the head's value, as the job would.
bool propagated_by_default(const std::string& name);

// The job's caches on a node whose environment is `env` and whose home is `home` (paths without a trailing
// '/'). Variables with an empty value count as unset, as the libraries treat them.
std::vector<CacheDir> job_cache_dirs(const std::map<std::string, std::string>& env, const std::string& home);

}  // namespace muster::doctor
