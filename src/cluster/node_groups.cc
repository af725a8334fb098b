#include "cluster/node_groups.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "cluster/hostlist.h"
#include "util/edit_distance.h"

namespace muster::cluster {
namespace {

// The items of a hostlist at its top level (commas inside brackets belong to the bracket), trimmed.
std::vector<std::string_view> top_level_items(std::string_view expr) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  auto take = [&](size_t end) {
    std::string_view item = expr.substr(start, end - start);
    size_t first = item.find_first_not_of(" \t");
    size_t last = item.find_last_not_of(" \t");
    items.push_back(first == std::string_view::npos ? std::string_view() : item.substr(first, last - first + 1));
  };
  for (size_t i = 0; i < expr.size(); ++i) {
    if (expr[i] == '[') ++depth;
    if (expr[i] == ']' && depth > 0) --depth;
    if (expr[i] == ',' && depth == 0) {
      take(i);
      start = i + 1;
    }
  }
  take(expr.size());
  return items;
}

bool names_groups(std::string_view expr) {
  auto items = top_level_items(expr);
  return std::any_of(items.begin(), items.end(),
                     [](std::string_view item) { return item.starts_with('@') || item.starts_with("-@"); });
}

class Expander {
 public:
  explicit Expander(const NodeGroups& groups) : groups_(groups) {}

  Result<std::string> expand(std::string_view expr, std::string_view what) {
    std::string out;
    for (std::string_view item : top_level_items(expr)) {
      bool exclude = item.starts_with("-@");
      if (!exclude && !item.starts_with('@')) {
        append(out, item);
        continue;
      }
      auto hosts = hosts_of(item.substr(exclude ? 2 : 1), what);
      if (!hosts) return hosts.error();
      for (const auto& host : *hosts) append(out, exclude ? "-" + host : host);
    }
    return out;
  }

 private:
  static void append(std::string& out, std::string_view item) {
    if (item.empty()) return;
    if (!out.empty()) out += ',';
    out += item;
  }

  Result<std::vector<std::string>> hosts_of(std::string_view name, std::string_view what) {
    auto found = groups_.find(std::string(name));
    if (found == groups_.end()) return unknown(name, what);
    if (std::find(path_.begin(), path_.end(), name) != path_.end()) {
      return make_error(ErrorKind::usage, "node group @{} ({}) names itself: @{} -> @{}", name, found->second.source,
                        fmt::join(path_, " -> @"), name);
    }
    path_.emplace_back(name);
    std::string where = fmt::format("node group @{} ({})", name, found->second.source);
    auto plain = expand(found->second.hostlist, where);
    path_.pop_back();
    if (!plain) return plain.error();
    return expand_hostlist(*plain, where);
  }

  Error unknown(std::string_view name, std::string_view what) const {
    std::vector<std::string> names;
    for (const auto& [known, group] : groups_) names.push_back(known);
    std::string message = fmt::format("{}: unknown node group @{}", what, name);
    if (auto guess = closest_match(name, names)) {
      message += fmt::format(", did you mean @{}?", *guess);
    } else if (names.empty()) {
      message += " (no groups are defined: add them under [groups] in muster.toml or ~/.config/muster/config.toml)";
    } else {
      message += fmt::format(" (groups: @{})", fmt::join(names, ", @"));
    }
    return Error{ErrorKind::usage, message};
  }

  const NodeGroups& groups_;
  std::vector<std::string> path_;  // the groups being expanded, outermost first
};

}  // namespace

bool valid_group_name(std::string_view name) {
  if (name.empty() || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

Result<std::string> expand_node_groups(std::string_view expr, const NodeGroups& groups, std::string_view what) {
  if (!names_groups(expr)) return std::string(expr);
  return Expander(groups).expand(expr, what);
}

}  // namespace muster::cluster
