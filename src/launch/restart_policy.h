// RestartPolicy: whether a failed attempt is tried again (`--max-restarts`, `--restart-on`,
// `--no-restart-exit-codes`, the thrash guard). Whose fault a failure was is decided before (Fault): the node's
// (it is excluded and the job goes on without it), the workload's (the same on every try: retrying cannot help),
// or not known (tried again on the same nodes). By default only what a retry can help is retried: a workload
// failure stops the job with its reason unless `--restart-on any`. One restart counter for the whole job, and a
// job that fails `thrash_failures` times within `thrash_window_ms` stops whatever the counter says. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace muster::launch {

struct Fault {
  enum class Kind { node, workload, unknown };
  Kind kind = Kind::unknown;
  std::string reason;                // "node3 lost: no heartbeat for 5005 ms", "the same exception on every rank: ..."
  std::optional<size_t> node;        // the node at fault (Kind::node)
  std::string exception;             // the root cause's last exception line, if any ("ValueError: ...")
};

enum class RestartOn { node_faults, any };

struct RestartRules {
  int max_restarts = 0;
  RestartOn restart_on = RestartOn::node_faults;
  std::set<int> no_restart_exit_codes;
  int thrash_failures = 3;              // this many failed attempts...
  int64_t thrash_window_ms = 600'000;   // ...within this long: stop (0 failures: off)
};

struct RestartDecision {
  bool restart = false;
  std::string why;  // why not (stop), or what kind of retry
};

class RestartPolicy {
 public:
  explicit RestartPolicy(RestartRules rules) : rules_(std::move(rules)) {}

  // An attempt failed at `now_ms` with `exit_code` (the root cause's); `fault` says whose fault it was.
  RestartDecision decide(const Fault& fault, int exit_code, int64_t now_ms);
  int restarts() const { return restarts_; }
  const RestartRules& rules() const { return rules_; }

 private:
  RestartRules rules_;
  int restarts_ = 0;
  std::vector<int64_t> failures_ms_;
};

// "1,2,42" -> {1, 2, 42}; nullopt when not a list of exit codes (0-255).
std::optional<std::set<int>> parse_exit_codes(const std::string& text);

}  // namespace muster::launch
