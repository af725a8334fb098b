#include "launch/restart_policy.h"

#include <algorithm>
#include <charconv>

#include <fmt/core.h>

#include "util/text.h"

namespace muster::launch {

RestartDecision RestartPolicy::decide(const Fault& fault, int exit_code, int64_t now_ms) {
  failures_ms_.push_back(now_ms);
  bool any = rules_.restart_on == RestartOn::any;
  if (!any && rules_.no_restart_exit_codes.contains(exit_code)) {
    return {false, fmt::format("exit code {} is in --no-restart-exit-codes: not restarted", exit_code)};
  }
  if (!any && fault.kind == Fault::Kind::workload) {
    return {false, fmt::format("{}: a restart would fail the same way, so none is made (--restart-on any retries "
                               "anyway)", fault.reason)};
  }
  if (rules_.max_restarts <= restarts_) {
    return {false, rules_.max_restarts == 0
                       ? std::string("no restarts asked for (--max-restarts 0)")
                       : fmt::format("all {} restarts used (--max-restarts)", rules_.max_restarts)};
  }
  if (rules_.thrash_failures > 0) {
    auto recent = std::count_if(failures_ms_.begin(), failures_ms_.end(),
                                [&](int64_t at) { return now_ms - at < rules_.thrash_window_ms; });
    if (recent >= rules_.thrash_failures) {
      return {false, fmt::format("{} failures within {} s: the job is thrashing, not restarted (--thrash-guard)",
                                 recent, rules_.thrash_window_ms / 1000)};
    }
  }
  ++restarts_;
  return {true, fault.kind == Fault::Kind::node ? "a node's fault" : "cause not known to be the workload's"};
}

std::optional<std::set<int>> parse_exit_codes(const std::string& text) {
  std::set<int> codes;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    int code = -1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), code);
    if (ec != std::errc() || end != item.data() + item.size() || code < 0 || code > 255) return std::nullopt;
    codes.insert(code);
  }
  return codes;
}

}  // namespace muster::launch
