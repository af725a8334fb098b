// The restart and spare flags of `muster launch` (launch_request.h), checked and turned into LaunchOptions.
#include <csignal>
#include <charconv>

#include <fmt/core.h>

#include "launch/launch_request.h"
#include "util/text.h"

namespace muster::launch {
namespace {

std::optional<int> whole(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

const std::vector<std::pair<std::string_view, int>>& signal_names() {
  static const std::vector<std::pair<std::string_view, int>> names = {
      {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"HUP", SIGHUP}, {"INT", SIGINT}, {"QUIT", SIGQUIT}};
  return names;
}

}  // namespace

Result<std::pair<int, int>> parse_nnodes(const std::string& text, size_t hosts) {
  auto colon = text.find(':');
  auto low = whole(trim(std::string_view(text).substr(0, colon)));
  auto high = colon == std::string::npos ? low : whole(trim(std::string_view(text).substr(colon + 1)));
  if (!low || !high || *low < 1 || *high < *low) {
    return make_error(ErrorKind::usage, "--nnodes {}: give N or MIN:MAX (1 <= MIN <= MAX), as torchrun", text);
  }
  if (static_cast<size_t>(*low) > hosts) {
    return make_error(ErrorKind::usage, "--nnodes {}: the job needs {} node{} but only {} host{} {} given", text, *low,
                      *low == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s", hosts == 1 ? "was" : "were");
  }
  return std::pair<int, int>{*low, std::min<int>(*high, static_cast<int>(hosts))};
}

Result<std::set<int>> parse_signal_names(const std::string& text) {
  std::set<int> signals;
  if (trim(text) == "none" || trim(text).empty()) return signals;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view name = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (name.starts_with("SIG")) name.remove_prefix(3);
    bool found = false;
    for (const auto& [known, number] : signal_names()) {
      if (name == known) signals.insert(number), found = true;
    }
    if (!found) {
      return make_error(ErrorKind::usage, "--forward-signals: '{}' is not one of USR1, USR2, TERM, HUP, INT, QUIT "
                                          "(or none)", name);
    }
  }
  return signals;
}

Result<void> resolve_restarts(const LaunchRequest& request, LaunchOptions& options) {
  size_t hosts = options.plan.nodes.size();
  if (!request.nnodes.empty()) {
    auto nnodes = parse_nnodes(request.nnodes, hosts);
    if (!nnodes) return nnodes.error();
    options.min_nodes = nnodes->first;
    options.max_nodes = nnodes->second;
  }
  options.restart.max_restarts = options.max_restarts;
  options.restart.restart_on = request.restart_on == "any" ? RestartOn::any : RestartOn::node_faults;
  auto codes = parse_exit_codes(request.no_restart_exit_codes);
  if (!codes) {
    return make_error(ErrorKind::usage, "--no-restart-exit-codes {}: give exit codes 0-255 separated by commas",
                      request.no_restart_exit_codes);
  }
  options.restart.no_restart_exit_codes = std::move(*codes);
  if (request.thrash_guard == "off") {
    options.restart.thrash_failures = 0;
  } else {
    auto slash = request.thrash_guard.find('/');
    auto count = whole(std::string_view(request.thrash_guard).substr(0, slash));
    auto minutes = slash == std::string::npos ? std::nullopt : whole(std::string_view(request.thrash_guard).substr(slash + 1));
    if (!count || !minutes || *count < 1 || *minutes < 1) {
      return make_error(ErrorKind::usage, "--thrash-guard {}: give N/MINUTES (stop after N failures within MINUTES), "
                                          "or off", request.thrash_guard);
    }
    options.restart.thrash_failures = *count;
    options.restart.thrash_window_ms = int64_t{*minutes} * 60'000;
  }
  options.exclude_cooldown_ms = static_cast<int64_t>(request.exclude_cooldown_s * 1000);
  auto forward = parse_signal_names(request.forward_signals);
  if (!forward) return forward.error();
  options.forward_signals = std::move(*forward);
  return {};
}

}  // namespace muster::launch
