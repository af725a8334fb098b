#include "sync/links.h"

#include <algorithm>
#include <unordered_map>

#include "util/text.h"

namespace muster::sync {
namespace {

constexpr int kMaxHops = 40;  // the kernel's limit on links followed in one resolution (ELOOP)

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

class Resolver {
 public:
  Resolver(const std::vector<Entry>& entries, std::string_view root) : root_(components(root)) {
    for (const auto& entry : entries) {
      if (entry.kind == EntryKind::symlink) links_.emplace(entry.path, &entry);
    }
  }

  LinkReach reach(const Entry& link) {
    hops_ = 0;
    done_ = false;
    verdict_ = LinkReach::inside;
    auto stack = components(link.path);
    stack.pop_back();
    walk(stack, link.target, 0);
    return verdict_;
  }

 private:
  // Resolves `target` from the directory `stack` (components below the root). `depth` 0: the link's own text;
  // deeper: the text of a link it passed through, whose own leaving is that link's verdict, not this one's.
  void walk(std::vector<std::string>& stack, std::string_view target, int depth) {
    std::vector<std::string> parts = components(target);
    if (!target.empty() && target.front() == '/') {
      if (!below_root(parts)) {
        if (depth == 0) verdict_ = LinkReach::absolute_outside;
        done_ = true;
        return;
      }
      if (depth == 0) verdict_ = LinkReach::absolute_inside;
      stack.clear();  // from the root on, through the tree's links like any relative path
    }
    for (const auto& part : parts) {
      if (done_) return;
      if (part == ".") continue;
      if (part == "..") {
        if (stack.empty()) {
          if (depth == 0) verdict_ = LinkReach::outside;
          done_ = true;
          return;
        }
        stack.pop_back();
        continue;
      }
      stack.push_back(part);
      auto found = links_.find(join(stack, "/"));
      if (found == links_.end()) continue;
      if (++hops_ > kMaxHops) {  // a loop: it fails on the node as it does here, without leaving
        done_ = true;
        return;
      }
      stack.pop_back();
      walk(stack, found->second->target, depth + 1);
    }
  }

  // Whether the components of an absolute target begin with the root's (then they become the rest below it).
  bool below_root(std::vector<std::string>& parts) const {
    std::erase(parts, ".");
    if (parts.size() < root_.size() || !std::equal(root_.begin(), root_.end(), parts.begin())) return false;
    parts.erase(parts.begin(), parts.begin() + static_cast<ptrdiff_t>(root_.size()));
    return true;
  }

  std::vector<std::string> root_;
  std::unordered_map<std::string, const Entry*> links_;
  int hops_ = 0;
  bool done_ = false;
  LinkReach verdict_ = LinkReach::inside;
};

}  // namespace

LinkReach link_reach(const std::vector<Entry>& entries, const Entry& link, std::string_view root) {
  return Resolver(entries, root).reach(link);
}

LinkSurvey survey_links(const std::vector<Entry>& entries, std::string_view root, bool same_path) {
  Resolver resolver(entries, root);
  LinkSurvey survey;
  for (const auto& entry : entries) {
    if (entry.kind != EntryKind::symlink) continue;
    switch (resolver.reach(entry)) {
      case LinkReach::inside: break;
      case LinkReach::absolute_inside:
        if (!same_path) survey.moved.push_back(entry);
        break;
      case LinkReach::outside: (same_path ? survey.node_local : survey.moved).push_back(entry); break;
      case LinkReach::absolute_outside: survey.node_local.push_back(entry); break;
    }
  }
  return survey;
}

}  // namespace muster::sync
