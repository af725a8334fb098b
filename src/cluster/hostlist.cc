#include "cluster/hostlist.h"

#include <fmt/format.h>

#include <unordered_set>

#include "cluster/hostlist_pattern.h"
#include "cluster/text_error.h"

namespace muster::cluster {
namespace {

Result<void> check_expansion_size(const std::vector<HostPattern>& patterns, std::string_view expr,
                                  std::string_view what) {
  uint64_t total = 0;
  for (const HostPattern& pattern : patterns) {
    total += count_pattern_names(pattern, kMaxHostlistNames);
    if (total > kMaxHostlistNames) {
      return error_in_expression(what, expr, pattern.offset,
                                 fmt::format("expands to more than {} hosts", kMaxHostlistNames));
    }
  }
  return {};
}

std::string_view host_part(std::string_view destination) {
  auto at = destination.find('@');
  return at == std::string_view::npos ? destination : destination.substr(at + 1);
}

// `names` without those in `excluded`; an excluded name without a user matches every user.
std::vector<std::string> without_excluded(std::vector<std::string> names,
                                          const std::vector<std::string>& excluded) {
  if (excluded.empty()) return names;
  std::unordered_set<std::string_view> gone(excluded.begin(), excluded.end());
  std::erase_if(
      names, [&](const std::string& name) { return gone.contains(name) || gone.contains(host_part(name)); });
  return names;
}

std::vector<std::string> without_duplicates(const std::vector<std::string>& names) {
  std::vector<std::string> unique;
  std::unordered_set<std::string_view> seen;
  for (const std::string& name : names) {
    if (seen.insert(name).second) unique.push_back(name);
  }
  return unique;
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view expr, std::string_view what) {
  auto patterns = parse_hostlist_patterns(expr, what);
  if (!patterns) return patterns.error();
  if (auto checked = check_expansion_size(*patterns, expr, what); !checked) return checked.error();
  std::vector<std::string> included, excluded;
  for (const HostPattern& pattern : *patterns) expand_pattern(pattern, pattern.exclude ? excluded : included);
  return without_excluded(without_duplicates(included), excluded);
}

Result<std::vector<std::string>> exclude_hosts(const std::vector<std::string>& hosts,
                                               std::string_view exclude_expr) {
  if (is_blank(exclude_expr)) return hosts;
  auto excluded = expand_hostlist(exclude_expr, "excluded hosts");
  if (!excluded) return excluded.error();
  return without_excluded(hosts, *excluded);
}

}  // namespace muster::cluster
