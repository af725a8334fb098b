#include "cluster/node_set.h"

#include <algorithm>
#include <tuple>

#include <fmt/core.h>

#include "cluster/decimal.h"
#include "cluster/hostlist.h"

namespace muster::cluster {
namespace {

constexpr size_t kMaxNumberDigits = 18;  // as compress_hostlist: longer numbers are text

// The sort key of a name: its pattern (the name with its last number replaced by "%s"), the number's value and
// width; a name without a number is its own pattern.
struct SetKey {
  std::string pattern;
  int64_t number = -1;
  size_t width = 0;
  auto tie() const { return std::tie(pattern, number, width); }
};

SetKey key_of(const std::string& name) {
  size_t end = name.find_last_of("0123456789");
  if (end == std::string::npos) return {name};
  size_t start = name.find_last_not_of("0123456789", end);
  start = start == std::string::npos ? 0 : start + 1;
  size_t digits = end + 1 - start;
  if (digits > kMaxNumberDigits) return {name};
  int64_t value = *parse_decimal(std::string_view(name).substr(start, digits), INT64_MAX);
  return {name.substr(0, start) + "%s" + name.substr(end + 1), value, digits};
}

}  // namespace

std::vector<std::string> sorted_node_set(std::vector<std::string> names) {
  std::vector<std::pair<SetKey, std::string>> keyed;
  keyed.reserve(names.size());
  for (auto& name : names) keyed.emplace_back(key_of(name), std::move(name));
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (a.first.tie() != b.first.tie()) return a.first.tie() < b.first.tie();
    return a.second < b.second;
  });
  std::vector<std::string> sorted;
  sorted.reserve(keyed.size());
  for (auto& [key, name] : keyed) {
    if (sorted.empty() || sorted.back() != name) sorted.push_back(std::move(name));
  }
  return sorted;
}

std::string fold_nodes(const std::vector<std::string>& names) { return compress_hostlist(sorted_node_set(names)); }

std::string counted_nodes(const std::vector<std::string>& names) {
  auto set = sorted_node_set(names);
  if (set.size() == 1) return set.front();
  return fmt::format("{} ({})", compress_hostlist(set), set.size());
}

std::string fold_numbers(std::vector<int> numbers) {
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::string text;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? std::to_string(numbers[i]) : fmt::format("{}-{}", numbers[i], numbers[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace muster::cluster
