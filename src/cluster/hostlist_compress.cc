// compress_hostlist (declared in hostlist.h): the inverse of expansion, kept in its own file because it
// shares nothing with the parser but the printing rule of numbers.
#include <fmt/format.h>

#include <optional>

#include "cluster/decimal.h"
#include "cluster/hostlist.h"

namespace muster::cluster {
namespace {

constexpr size_t kMaxNumberDigits = 18;  // as in hostlist_pattern.cc: longer numbers stay literal text

// A name split around its last run of digits: "rack1-gpu07.lan" is "rack1-gpu", "07", ".lan".
struct NumberedName {
  std::string_view prefix;
  std::string_view digits;
  std::string_view suffix;
};

std::optional<NumberedName> split_last_number(std::string_view name) {
  size_t end = name.find_last_of("0123456789");
  if (end == std::string_view::npos) return std::nullopt;
  size_t start = name.find_last_not_of("0123456789", end);
  start = start == std::string_view::npos ? 0 : start + 1;
  if (end + 1 - start > kMaxNumberDigits) return std::nullopt;
  return NumberedName{name.substr(0, start), name.substr(start, end + 1 - start), name.substr(end + 1)};
}

bool same_family(const std::optional<NumberedName>& a, const std::optional<NumberedName>& b) {
  return a && b && a->prefix == b->prefix && a->suffix == b->suffix;
}

// Consecutive numbers printed with the width of the first: what one `low-high` of a bracket stands for.
struct Run {
  int64_t low;
  int64_t high;
  size_t width;
};

std::vector<Run> runs_of(const std::vector<std::string_view>& numbers) {
  std::vector<Run> runs;
  for (std::string_view digits : numbers) {
    int64_t value = *parse_decimal(digits, INT64_MAX);
    if (!runs.empty() && value == runs.back().high + 1 && format_padded(value, runs.back().width) == digits) {
      runs.back().high = value;
    } else {
      runs.push_back({value, value, digits.size()});
    }
  }
  return runs;
}

std::string bracket(const std::vector<std::string_view>& numbers) {
  std::string text = "[";
  for (const Run& run : runs_of(numbers)) {
    if (text.size() > 1) text += ',';
    text += format_padded(run.low, run.width);
    if (run.high != run.low) text += "-" + format_padded(run.high, run.width);
  }
  return text + "]";
}

// One past the last of the names from `begin` on that differ only in their last number.
size_t family_end(const std::vector<std::string>& hosts, size_t begin) {
  auto first = split_last_number(hosts[begin]);
  size_t end = begin + 1;
  while (end < hosts.size() && same_family(first, split_last_number(hosts[end]))) ++end;
  return end;
}

std::string compress_family(const std::vector<std::string>& hosts, size_t begin, size_t end) {
  std::vector<std::string_view> numbers;
  for (size_t i = begin; i < end; ++i) numbers.push_back(split_last_number(hosts[i])->digits);
  auto first = *split_last_number(hosts[begin]);
  return fmt::format("{}{}{}", first.prefix, bracket(numbers), first.suffix);
}

}  // namespace

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  std::vector<std::string> items;
  for (size_t begin = 0; begin < hosts.size();) {
    size_t end = family_end(hosts, begin);
    items.push_back(end - begin == 1 ? hosts[begin] : compress_family(hosts, begin, end));
    begin = end;
  }
  return fmt::format("{}", fmt::join(items, ","));
}

}  // namespace muster::cluster
