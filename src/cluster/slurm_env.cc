#include "cluster/slurm_env.h"

#include <fmt/format.h>

#include "cluster/decimal.h"
#include "cluster/hostfile.h"
#include "cluster/hostlist.h"
#include "cluster/text_error.h"

namespace muster::cluster {
namespace {

constexpr std::string_view kTasksVariable = "SLURM_TASKS_PER_NODE";

// Reads `count[(xrepeat)]` items left to right.
class TasksParser {
 public:
  explicit TasksParser(std::string_view text) : text_(text) {}

  Result<std::vector<int>> parse_all();

 private:
  Result<void> parse_item(std::vector<int>& counts);
  Result<int64_t> parse_number(std::string_view name, int64_t max);
  bool accept(std::string_view token);
  Error expected(std::string_view thing) const {
    auto found = describe_found(text_.substr(pos_, 1));
    return error_in_expression(kTasksVariable, text_, pos_,
                               fmt::format("expected {}, found {}", thing, found));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Result<std::vector<int>> TasksParser::parse_all() {
  std::vector<int> counts;
  while (true) {
    if (auto item = parse_item(counts); !item) return item.error();
    if (pos_ == text_.size()) return counts;
    if (!accept(",")) return expected("',' or the end");
  }
}

Result<void> TasksParser::parse_item(std::vector<int>& counts) {
  size_t start = pos_;
  auto count = parse_number("task count", kMaxSlotsPerHost);
  if (!count) return count.error();
  int64_t repeat = 1;
  if (accept("(")) {
    if (!accept("x")) return expected("'x' after '('");
    auto number = parse_number("repeat count", kMaxHostlistNames);
    if (!number) return number.error();
    if (!accept(")")) return expected("')'");
    repeat = *number;
  }
  if (counts.size() + static_cast<size_t>(repeat) > kMaxHostlistNames) {
    return error_in_expression(kTasksVariable, text_, start,
                               fmt::format("lists more than {} nodes", kMaxHostlistNames));
  }
  counts.insert(counts.end(), static_cast<size_t>(repeat), static_cast<int>(*count));
  return {};
}

// A number from 1 to `max`; `name` says what it counts in errors.
Result<int64_t> TasksParser::parse_number(std::string_view name, int64_t max) {
  size_t start = pos_;
  size_t digits = count_leading_digits(text_.substr(pos_));
  if (digits == 0) return expected(fmt::format("a {}", name));
  pos_ += digits;
  auto value = parse_decimal(text_.substr(start, digits), max);
  if (value && *value >= 1) return *value;
  return error_in_expression(
      kTasksVariable, text_, start,
      fmt::format("{} must be from 1 to {}, found {}", name, max, text_.substr(start, digits)));
}

bool TasksParser::accept(std::string_view token) {
  if (!text_.substr(pos_).starts_with(token)) return false;
  pos_ += token.size();
  return true;
}

}  // namespace

Result<std::vector<int>> parse_tasks_per_node(std::string_view tasks_per_node) {
  return TasksParser(tasks_per_node).parse_all();
}

Result<std::vector<Host>> hosts_from_slurm(std::string_view nodelist, std::string_view tasks_per_node) {
  auto names = expand_hostlist(nodelist, "SLURM_JOB_NODELIST");
  if (!names) return names.error();
  auto counts = parse_tasks_per_node(tasks_per_node);
  if (!counts) return counts.error();
  if (counts->size() != names->size()) {
    return make_error(
        ErrorKind::parse,
        "SLURM_TASKS_PER_NODE \"{}\" gives task counts for {} nodes, but SLURM_JOB_NODELIST \"{}\" has {}; "
        "they must match node for node",
        tasks_per_node, counts->size(), nodelist, names->size());
  }
  std::vector<Host> hosts;
  for (size_t i = 0; i < names->size(); ++i) {
    Host host = host_from_destination((*names)[i]);
    host.slots = (*counts)[i];
    hosts.push_back(std::move(host));
  }
  return hosts;
}

}  // namespace muster::cluster
