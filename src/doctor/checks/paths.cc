// The same code everywhere: every path the job uses exists on every node, and the code paths have the same
// content (compared by content hash; differing files named from the per-file hashes). Also says whether a
// path is on one shared network filesystem or node-local (then `muster sync` keeps it identical).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "doctor/checks/support.h"

namespace muster::doctor::detail {
namespace {

constexpr std::size_t kMaxNamedFiles = 5;

bool is_network_fs(const std::string& type) {
  static const std::set<std::string> kNetwork = {"nfs",  "nfs4",   "lustre", "gpfs",      "cifs",
                                                 "smb3", "beegfs", "ceph",   "glusterfs", "9p"};
  return kNetwork.count(type) > 0 || type.rfind("fuse.", 0) == 0;
}

const PathFacts* find_path(const NodeFacts& node, const std::string& path) {
  auto it =
      std::find_if(node.paths.begin(), node.paths.end(), [&](const PathFacts& p) { return p.path == path; });
  return it == node.paths.end() ? nullptr : &*it;
}

std::vector<std::string> paths_to_check(const CheckInput& in) {
  std::vector<std::string> paths = in.options.code_paths;
  for (const auto& node : in.facts) {
    for (const auto& p : node.paths) {
      if (std::find(paths.begin(), paths.end(), p.path) == paths.end()) paths.push_back(p.path);
    }
  }
  return paths;
}

bool content_must_match(const CheckInput& in, const std::string& path) {
  const auto& code = in.options.code_paths;
  return code.empty() || std::find(code.begin(), code.end(), path) != code.end();
}

// Files whose hash differs between two nodes' listings (or that only one has), sorted, at most
// kMaxNamedFiles.
std::vector<std::string> differing_files(const PathFacts& a, const PathFacts& b) {
  std::set<std::string> files;
  for (const auto& [file, hash] : a.file_hashes) {
    auto other = b.file_hashes.find(file);
    if (other == b.file_hashes.end() || other->second != hash) files.insert(file);
  }
  for (const auto& [file, hash] : b.file_hashes) {
    if (!a.file_hashes.count(file)) files.insert(file);
  }
  std::vector<std::string> named(files.begin(), files.end());
  if (named.size() > kMaxNamedFiles) named.resize(kMaxNamedFiles);
  return named;
}

std::string filesystem_note(const CheckInput& in, const std::vector<const PathFacts*>& found) {
  std::vector<std::optional<std::string>> types(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (found[i] && !found[i]->fs_type.empty()) types[i] = found[i]->fs_type;
  }
  auto groups = group_values(types, in.master());
  if (groups.size() == 1 && is_network_fs(groups[0].value))
    return fmt::format("shared filesystem ({})", groups[0].value);
  std::vector<std::string> names;
  for (const auto& group : groups) names.push_back(group.value);
  return names.empty() ? "node-local" : fmt::format("node-local ({})", fmt::join(names, ", "));
}

// Content differences among the nodes that have the path; false when there were some.
bool compare_content(const CheckInput& in, const std::string& path,
                     const std::vector<const PathFacts*>& found, Findings& out) {
  std::vector<std::optional<std::string>> hashes(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (found[i] && !found[i]->content_hash.empty()) hashes[i] = found[i]->content_hash;
  }
  auto groups = group_values(hashes, in.master());
  if (groups.size() < 2) return true;
  const PathFacts& reference = *found[groups[0].nodes[0]];
  std::string table = fmt::format("\n  same as each other: {}", node_list(in, groups[0].nodes));
  std::vector<std::size_t> odd;
  for (std::size_t g = 1; g < groups.size(); ++g) {
    for (std::size_t i : groups[g].nodes) {
      odd.push_back(i);
      auto files = differing_files(reference, *found[i]);
      table += fmt::format(
          "\n  differs on {}: {}", in.names[i],
          files.empty() ? std::string("(files not listed)") : fmt::format("{}", fmt::join(files, ", ")));
    }
  }
  std::sort(odd.begin(), odd.end());
  out.push_back({Severity::error, "paths", odd.size() == 1 ? in.names[odd[0]] : "",
                 fmt::format("{} is not the same on every node:{}", path, table),
                 fmt::format("muster sync {} (from the head), or put it on a shared filesystem", path)});
  return false;
}

}  // namespace

void check_paths(const CheckInput& in, Findings& out) {
  for (const auto& path : paths_to_check(in)) {
    std::vector<const PathFacts*> found(in.size());
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const PathFacts* facts = find_path(in.facts[i], path);
      if (facts && facts->exists) {
        found[i] = facts;
      } else {
        missing.push_back(i);
      }
    }
    bool clean = missing.empty();
    if (!missing.empty()) {
      out.push_back({Severity::error, "paths", missing.size() == 1 ? in.names[missing[0]] : "",
                     fmt::format("{} is missing on {}", path, node_list(in, missing)),
                     fmt::format("muster sync {}, or mount the shared filesystem that holds it on {}", path,
                                 node_list(in, missing))});
    }
    if (content_must_match(in, path)) clean &= compare_content(in, path, found, out);
    if (clean) {
      bool hashed = std::all_of(found.begin(), found.end(),
                                [](const PathFacts* p) { return !p->content_hash.empty(); });
      const char* state = !content_must_match(in, path) ? "present"
                          : hashed                      ? "identical"
                                                        : "present (too big to compare)";
      out.push_back({Severity::ok, "paths", "",
                     fmt::format("{}: {} on every node, {}", path, state, filesystem_note(in, found)), ""});
    }
  }
}

}  // namespace muster::doctor::detail
