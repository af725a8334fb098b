// `muster setup ssh|hosts`: the how-tos' manual cluster set-up (ssh-copy-id on every node, /etc/hosts by
// hand) as commands run from the head. Every step runs on all nodes at once (head::run_on_nodes); node-side
// edits are `muster node ...` (setup/node_ops.h), idempotent, never removing anything of the user's.
#include <algorithm>
#include <map>
#include <sstream>

#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/host_options.h"
#include "cli/node_pool.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cluster/rank_plan.h"
#include "head/agent_pool.h"
#include "head/node_runs.h"
#include "head/ssh_matrix.h"
#include "posix/signals.h"
#include "util/text.h"

namespace muster::cli {
namespace {

constexpr int kStepTimeoutMs = 60'000;

struct SetupFlags {
  PoolFlags pool;
  bool dry_run = false;
  bool fix_loopback = false;
};

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

head::NodeCommand node_op(std::vector<std::string> argv, bool dry_run, const std::vector<std::string>& lines) {
  argv.insert(argv.begin(), {head::kNodeMuster, "node"});
  if (dry_run) argv.push_back("--dry-run");
  argv.push_back("--");
  argv.insert(argv.end(), lines.begin(), lines.end());
  return head::NodeCommand{argv, {}};
}

void print_results(const std::vector<head::NodeRun>& runs, const std::vector<std::string>& names, const char* what) {
  for (size_t i = 0; i < runs.size(); ++i) {
    auto lines = lines_of(runs[i].out);
    fmt::print("  {:<20} {}: {}\n", names[i], what, lines.empty() ? "?" : lines.back());
  }
}

Result<void> setup_ssh(head::AgentPool& pool, const std::vector<std::string>& names, bool dry_run) {
  auto identities = head::run_on_nodes(pool, [&](size_t) {
    return node_op({"ssh-identity"}, dry_run, {});
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
    return node_op({"add-lines", "--file", ".ssh/known_hosts", "--mode", "0644"}, dry_run,
                   lines_of((*scans)[node].out));
  }, kStepTimeoutMs);
  if (!known) return known.error();
  if (auto ok = check_runs(*known, names, "updating known_hosts"); !ok) return ok.error();
  print_results(*known, names, "known_hosts");
  auto authorized = head::run_on_nodes(pool, [&](size_t) {
    return node_op({"add-lines", "--file", ".ssh/authorized_keys", "--mode", "0600"}, dry_run, keys);
  }, kStepTimeoutMs);
  if (!authorized) return authorized.error();
  if (auto ok = check_runs(*authorized, names, "updating authorized_keys"); !ok) return ok.error();
  print_results(*authorized, names, "authorized_keys");
  if (dry_run) return {};
  auto failed = head::failed_ssh_pairs(pool, names);
  if (!failed) return failed.error();
  if (!failed->empty()) {
    std::string pairs;
    for (const auto& pair : *failed) pairs += fmt::format("\n  {} -> {}", names[pair.from], names[pair.to]);
    return make_error(ErrorKind::remote, "ssh still fails between {} pairs of nodes:{}", failed->size(), pairs);
  }
  fmt::print("ssh works between all {} ordered pairs of {} nodes\n", names.size() * (names.size() - 1),
             names.size());
  return {};
}

Result<void> setup_hosts(head::AgentPool& pool, const std::vector<std::string>& names, bool dry_run,
                         bool fix_loopback) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& hello = pool.hello(i);
    if (hello.ssh_addr.empty()) return make_error(ErrorKind::usage, "no cluster address for {} (reached without ssh)", names[i]);
    std::string line = hello.ssh_addr + " " + names[i];
    if (!hello.hostname.empty() && hello.hostname != names[i]) line += " " + hello.hostname;
    lines.push_back(line);
  }
  auto runs = head::run_on_nodes(pool, [&](size_t) {
    std::vector<std::string> op = {"hosts-block", "--file", "/etc/hosts"};
    if (fix_loopback) op.push_back("--fix-loopback");
    return node_op(op, dry_run, lines);
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

}  // namespace

int run_setup(const std::vector<std::string>& args) {
  auto app = make_app("setup", "Set up the cluster from this machine: passwordless ssh between all nodes, "
                               "/etc/hosts entries for all nodes.");
  app->require_subcommand(1);
  SetupFlags flags;
  for (auto* sub : {app->add_subcommand("ssh", "make `ssh nodeJ` work from every node I without a password"),
                    app->add_subcommand("hosts", "a managed block in /etc/hosts on every node naming every node")}) {
    add_host_options(*sub, flags.pool.hosts);
    add_pool_flags(*sub, flags.pool);
    sub->add_flag("--dry-run", flags.dry_run, "show what would change, change nothing");
    if (sub->get_name() == "hosts") {
      sub->add_flag("--fix-loopback", flags.fix_loopback,
                    "also drop the node's own name from its 127.0.1.1 line (Debian's default)");
    }
  }
  if (auto code = parse_command_line(*app, args)) return *code;
  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = connect_pool(flags.pool, names);
  if (!pool) return report_error(pool.error());
  auto done = app->got_subcommand("ssh") ? setup_ssh(**pool, names, flags.dry_run)
                                         : setup_hosts(**pool, names, flags.dry_run, flags.fix_loopback);
  (*pool)->shutdown(3000);
  if (!done) return report_error(done.error());
  return kExitOk;
}

}  // namespace muster::cli
