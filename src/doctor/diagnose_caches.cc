#include "doctor/diagnose_caches.h"

#include <map>
#include <sstream>

#include <fmt/core.h>

#include "head/node_runs.h"
#include "util/random.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

constexpr int kRoundTimeoutMs = 30'000;

}  // namespace

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
                                   "extensions' build lock:", join(members, ", "));
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

void check_shared_caches(head::AgentPool& pool, const std::vector<std::string>& names,
                         const std::vector<NodeFacts>& facts, std::vector<Finding>& findings) {
  if (names.size() < 2) return;
  std::string token = ".muster-doctor-cache-" + random_hex(16) + "-";
  const char* write = "K=$1; shift; for p; do [ -d \"$p\" ] && : >\"$p/$T$K\" 2>/dev/null; done; true";
  const char* look =
      "shift; i=0; for p; do for f in \"$p\"/$T*; do [ -e \"$f\" ] && echo \"$i ${f##*-}\"; done; i=$((i+1)); "
      "done; true";
  const char* remove = "K=$1; shift; for p; do rm -f \"$p/$T$K\"; done";
  auto round = [&](const char* script) {
    return head::run_on_nodes(pool, [&](size_t node) {
      std::vector<std::string> argv = {"sh", "-c", script, "sh", std::to_string(node)};
      for (const auto& cache : facts[node].caches) argv.push_back(cache.probe.empty() ? "/nonexistent" : cache.probe);
      return head::NodeCommand{argv, {"T=" + token}};
    }, kRoundTimeoutMs);
  };
  auto wrote = round(write);
  auto saw = round(look);
  (void)round(remove);
  if (!wrote || !saw) return;
  std::vector<std::vector<std::set<size_t>>> seen(names.size());
  for (size_t node = 0; node < names.size(); ++node) {
    seen[node].resize(facts[node].caches.size());
    size_t cache = 0, writer = 0;
    std::istringstream lines((*saw)[node].out);
    while (lines >> cache >> writer) {
      if (cache < seen[node].size() && writer < names.size()) seen[node][cache].insert(writer);
    }
  }
  for (auto& finding : judge_cache_sharing(names, facts, seen)) findings.push_back(std::move(finding));
}

}  // namespace muster::doctor
