#include "doctor/checks/cache_sharing.h"

#include <map>
#include <sstream>

#include <fmt/core.h>

#include "cluster/node_set.h"
#include "util/random.h"
#include "util/text.h"

namespace muster::doctor {
std::vector<Finding> judge_cache_sharing(const std::vector<std::string>& names, const std::vector<NodeFacts>& facts,
                                         const std::vector<std::vector<std::set<size_t>>>& seen) {
  // For each cache (by index, the same list on every node): the nodes that share it with each node.
  std::map<std::set<size_t>, std::vector<std::string>> shared;  // node group -> lines naming its caches
  bool any_reported = false;
  for (size_t node = 0; node < facts.size() && node < seen.size(); ++node) {
    const auto& caches = facts[node].caches;
    any_reported |= !caches.empty();
    for (size_t c = 0; c < caches.size() && c < seen[node].size(); ++c) {
      std::set<size_t> group = seen[node][c];
      group.insert(node);
      if (group.size() < 2 || *group.begin() != node) continue;  // reported once, by the group's first node
      const CacheDir& cache = caches[c];
      shared[group].push_back(fmt::format("{}={}{}", cache.name, cache.path, cache.set ? "" : " (the default)"));
    }
  }
  std::vector<Finding> out;
  if (!any_reported) return out;
  for (const auto& [group, lines] : shared) {
    std::vector<std::string> members;
    for (size_t node : group) members.push_back(names[node]);
    std::string text = fmt::format("the job's caches are one directory shared by {} (a shared filesystem): every "
                                   "node writes them at once, which breaks the datasets cache and the torch "
                                   "extensions' build lock:", cluster::fold_nodes(members));
    for (const auto& line : lines) text += "\n  " + line;
    out.push_back({Severity::warning, "caches", group.size() == names.size() ? "" : names[*group.begin()], text,
                   "muster launch --node-local-caches (each node gets its own, under /tmp/muster-cache-<uid>/<host>), "
                   "or give each cache a node-local directory, e.g. --env HF_DATASETS_CACHE=/tmp/hf-datasets"});
  }
  if (out.empty()) {
    out.push_back({Severity::ok, "caches", "", "the job's caches (HF_HOME, HF_DATASETS_CACHE, TORCH_HOME, ...) are "
                                              "node-local on every node", ""});
  }
  return out;
}

std::vector<std::vector<std::set<size_t>>> cache_markers_seen(const std::vector<NodeFacts>& facts,
                                                              const std::vector<std::string>& cross_outputs) {
  std::vector<std::vector<std::set<size_t>>> seen(facts.size());
  for (size_t node = 0; node < facts.size() && node < cross_outputs.size(); ++node) {
    seen[node].resize(facts[node].caches.size());
    for (auto line : split_lines(cross_outputs[node])) {
      if (line.rfind("cache ", 0) != 0) continue;
      std::istringstream words{std::string(line.substr(6))};
      size_t cache = 0, writer = 0;
      if (words >> cache >> writer && cache < seen[node].size() && writer < facts.size()) seen[node][cache].insert(writer);
    }
  }
  return seen;
}

}  // namespace muster::doctor
