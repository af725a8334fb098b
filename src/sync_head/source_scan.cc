#include "sync_head/source_scan.h"

#include <algorithm>
#include <filesystem>

#include <fmt/core.h>

#include "sync/links.h"

namespace muster::sync_head {
namespace {

constexpr int kMaxFollowRounds = 16;  // links inside copied targets that leave in turn, and so on
constexpr size_t kMaxListed = 200;

std::string link_list(const std::vector<sync::Entry>& links, const std::string& source) {
  std::string text;
  for (size_t i = 0; i < links.size() && i < kMaxListed; ++i) {
    text += fmt::format("\n  {}/{} -> {}", source, links[i].path, links[i].target);
  }
  if (links.size() > kMaxListed) text += fmt::format("\n  ... and {} more", links.size() - kMaxListed);
  return text;
}

Error choice_needed(const sync::LinkSurvey& survey, const std::string& source, const std::string& destination) {
  return make_error(
      ErrorKind::usage,
      "{} symbolic link{} in {} would point somewhere else in a copy at {} (relative links that climb out of the "
      "tree, or absolute links into it):{}\n"
      "choose what they become with --links: keep (the same link text, resolved from {} on each node), "
      "copy-target (copy what each points to), or skip (leave them out); or sync to the same path (no --to), where "
      "they resolve on every node as they do here",
      survey.moved.size(), survey.moved.size() == 1 ? "" : "s", source, destination, link_list(survey.moved, source),
      destination);
}

std::vector<sync::Entry> leaving_links(const sync::LinkSurvey& survey) {
  std::vector<sync::Entry> all = survey.node_local;
  all.insert(all.end(), survey.moved.begin(), survey.moved.end());
  return all;
}

// The directories that hold what `links` point to, seen from a copy at `destination` (lexically: `..` of the
// link's own directory), sorted, at most kMaxTargetDirs.
std::vector<std::string> target_dirs(const std::vector<sync::Entry>& links, const std::string& destination) {
  constexpr size_t kMaxTargetDirs = 5;
  std::set<std::string> dirs;
  for (const auto& link : links) {
    std::filesystem::path from(destination + "/" + link.path);
    auto target = (link.target.front() == '/' ? std::filesystem::path(link.target)
                                              : from.parent_path() / link.target).lexically_normal();
    dirs.insert(target.parent_path().string());
  }
  std::vector<std::string> out(dirs.begin(), dirs.end());
  if (out.size() > kMaxTargetDirs) {
    out.resize(kMaxTargetDirs);
    out.push_back("...");
  }
  return out;
}

}  // namespace

Result<LinkPolicy> parse_link_policy(const std::string& name) {
  if (name.empty()) return LinkPolicy::ask;
  if (name == "keep") return LinkPolicy::keep;
  if (name == "copy-target") return LinkPolicy::copy_target;
  if (name == "skip") return LinkPolicy::skip;
  return make_error(ErrorKind::usage, "--links {}: expected keep, copy-target or skip", name);
}

Result<ScannedSource> scan_source(const std::string& source, const std::string& destination,
                                  const sync::ExcludeRules& rules, sync::HashCache* cache, LinkPolicy policy) {
  bool same_path = source == destination;
  ScannedSource out;
  std::vector<std::string> follow;
  for (int round = 0;; ++round) {
    auto scanned = sync::scan_tree(source, rules, sync::ScanOptions{cache, &follow});
    if (!scanned) return scanned.error();
    auto survey = sync::survey_links(scanned->entries, source, same_path);
    if (policy == LinkPolicy::ask && !survey.moved.empty()) return choice_needed(survey, source, destination);
    if (policy == LinkPolicy::copy_target && survey.leaving() > 0) {
      if (round == kMaxFollowRounds) {
        return make_error(ErrorKind::usage, "--links copy-target: links in {} still lead out of the tree after {} "
                                            "rounds of copying what they point to:{}",
                          source, kMaxFollowRounds, link_list(leaving_links(survey), source));
      }
      for (const auto& link : leaving_links(survey)) follow.push_back(link.path);
      continue;  // walk again, now through those links
    }
    out.manifest = std::move(*scanned);
    if (policy == LinkPolicy::skip) {
      out.links.skipped = survey.leaving();
      auto leaving = leaving_links(survey);
      std::set<std::string> drop;
      for (const auto& link : leaving) drop.insert(link.path);
      std::erase_if(out.manifest.entries, [&](const sync::Entry& e) { return drop.count(e.path) != 0; });
    } else {
      out.links.kept_leaving = survey.leaving();
      out.links.kept_target_dirs = target_dirs(leaving_links(survey), destination);
    }
    break;
  }
  out.links.copied = follow.size();
  std::set<std::string> followed(follow.begin(), follow.end());
  for (const auto& entry : out.manifest.entries) {
    if (entry.kind == sync::EntryKind::file && followed.count(entry.path)) out.followed_files.insert(entry.path);
  }
  return out;
}

}  // namespace muster::sync_head
