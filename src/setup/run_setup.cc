#include "setup/run_setup.h"

#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "doctor/ssh/matrix.h"
#include "head/node_op.h"
#include "head/node_runs.h"
#include "setup/hosts_entries.h"
#include "setup/node_ops.h"
#include "posix/signals.h"
#include "util/text.h"

namespace muster::setup {
namespace {

constexpr int kStepTimeoutMs = 60'000;

// The non-empty lines of a node's output.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (auto line : split_lines(text)) {
    if (!line.empty()) lines.emplace_back(line);
  }
  return lines;
}

std::string first_word(const std::string& line) { return line.substr(0, line.find(' ')); }
std::string after_first_word(const std::string& line) {
  auto space = line.find(' ');
  return space == std::string::npos ? "" : line.substr(space + 1);
}

// Fails with the first node whose step did not succeed, naming it and quoting its stderr.
Result<void> check_runs(const std::vector<head::NodeRun>& runs, const std::vector<std::string>& names,
                        const char* step) {
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].ok()) continue;
    std::string why = !runs[i].error.empty() ? runs[i].error : runs[i].err;
    return make_error(ErrorKind::remote, "{} on {} failed: {}", step, names[i], why);
  }
  return {};
}

head::NodeCommand add_lines(const char* file, const char* mode, bool dry_run, std::vector<std::string> lines) {
  return head::node_op_command(AddLinesOp{dry_run, file, mode, std::move(lines)});
}

void print_results(const std::vector<head::NodeRun>& runs, const std::vector<std::string>& names, const char* what) {
  for (size_t i = 0; i < runs.size(); ++i) {
    auto lines = lines_of(runs[i].out);
    fmt::print("  {:<20} {}: {}\n", names[i], what, lines.empty() ? "?" : lines.back());
  }
}

Result<void> setup_ssh(head::AgentPool& pool, const std::vector<std::string>& names, const SetupOptions& options) {
  bool dry_run = options.dry_run;
  auto identities = head::run_on_nodes(pool, [&](size_t) {
    return head::node_op_command(SshIdentityOp{dry_run});
  }, kStepTimeoutMs);
  if (!identities) return identities.error();
  if (auto ok = check_runs(*identities, names, "finding or creating an ssh key"); !ok) return ok.error();
  std::vector<std::string> keys;
  for (size_t i = 0; i < identities->size(); ++i) {
    for (const auto& line : lines_of((*identities)[i].out)) {
      if (first_word(line) == "key") keys.push_back(after_first_word(line));
    }
  }
  print_results(*identities, names, "ssh key");
  auto scans = head::run_on_nodes(pool, [&](size_t node) {
    std::vector<std::string> argv = {"sh", "-c", "ssh-keyscan -T 5 \"$@\" 2>/dev/null | sort", "sh"};
    for (size_t j = 0; j < names.size(); ++j) {
      if (j != node) argv.push_back(names[j]);
    }
    return head::NodeCommand{argv, {}};
  }, kStepTimeoutMs);
  if (!scans) return scans.error();
  auto known = head::run_on_nodes(pool, [&](size_t node) {
    return add_lines(".ssh/known_hosts", "0644", dry_run, lines_of((*scans)[node].out));
  }, kStepTimeoutMs);
  if (!known) return known.error();
  if (auto ok = check_runs(*known, names, "updating known_hosts"); !ok) return ok.error();
  print_results(*known, names, "known_hosts");
  auto authorized = head::run_on_nodes(pool, [&](size_t) {
    return add_lines(".ssh/authorized_keys", "0600", dry_run, keys);
  }, kStepTimeoutMs);
  if (!authorized) return authorized.error();
  if (auto ok = check_runs(*authorized, names, "updating authorized_keys"); !ok) return ok.error();
  print_results(*authorized, names, "authorized_keys");
  if (dry_run) return {};
  auto check = doctor::check_ssh_pairs(pool, names, options.ssh_matrix);
  if (!check) return check.error();
  if (!check->failed.empty()) {
    std::string pairs;
    for (const auto& pair : check->failed) {
      pairs += fmt::format("\n  {} -> {}{}", names[pair.from], names[pair.to], pair.reason.empty() ? "" : ": " + pair.reason);
    }
    return make_error(ErrorKind::remote, "ssh still fails between {} pairs of nodes:{}", check->failed.size(), pairs);
  }
  fmt::print("ssh works between all {} ordered pairs of {} nodes\n", names.size() * (names.size() - 1),
             names.size());
  return {};
}

Result<void> setup_hosts(head::AgentPool& pool, const std::vector<std::string>& names, const SetupOptions& options) {
  bool dry_run = options.dry_run, fix_loopback = options.fix_loopback;
  std::vector<std::string> lines;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& hello = pool.hello(i);
    if (hello.ssh_addr.empty()) return make_error(ErrorKind::usage, "no cluster address for {} (reached without ssh)", names[i]);
    std::vector<std::string> aliases = {names[i]};
    if (!hello.hostname.empty() && hello.hostname != names[i]) aliases.push_back(hello.hostname);
    auto line = hosts_entry(names[i], hello.ssh_addr, aliases);  // what a node reported is checked before use
    if (!line) return line.error();
    lines.push_back(*line);
  }
  auto runs = head::run_on_nodes(pool, [&](size_t) {
    return head::node_op_command(HostsBlockOp{dry_run, "/etc/hosts", fix_loopback, lines});
  }, kStepTimeoutMs);
  if (!runs) return runs.error();
  if (auto ok = check_runs(*runs, names, "updating /etc/hosts"); !ok) return ok.error();
  print_results(*runs, names, "/etc/hosts");
  for (size_t i = 0; i < runs->size(); ++i) {
    for (const auto& line : lines_of((*runs)[i].out)) {
      if (first_word(line) == "loopback-trap") {
        fmt::print("warning: {} maps its own name to a loopback address (127.0.1.1): gloo/NCCL would bind "
                   "there; run again with --fix-loopback, or set GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME\n",
                   names[i]);
      }
    }
  }
  return {};
}

Result<void> with_pool(const SetupOptions& options, Result<void> (*step)(head::AgentPool&, const std::vector<std::string>&,
                                                                   const SetupOptions&)) {
  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = head::connect_pool(options.connect, names);
  if (!pool) return pool.error();
  auto done = step(**pool, names, options);
  (*pool)->shutdown(3000);
  return done;
}

}  // namespace

Result<void> run_setup_ssh(const SetupOptions& options) {
  SetupOptions star = options;
  star.connect.fanout = 0;  // the nodes cannot ssh to each other yet: that is what this sets up
  return with_pool(star, setup_ssh);
}
Result<void> run_setup_hosts(const SetupOptions& options) { return with_pool(options, setup_hosts); }

}  // namespace muster::setup
