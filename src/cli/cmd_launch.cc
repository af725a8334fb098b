// `muster launch`: flags -> LaunchOptions; the work is launch::run_launch.
#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/diagnose.h"
#include "cli/host_options.h"
#include "cli/node_pool.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cli/sync_command.h"
#include "cli/sync_view.h"
#include "cluster/rank_plan.h"
#include "launch/launch_options.h"
#include "launch/rank_env.h"
#include "doctor/report.h"
#include "posix/environment.h"
#include "posix/signals.h"
#include "posix/terminal.h"

namespace muster::cli {
namespace {

struct LaunchFlags {
  HostOptions hosts;
  std::string transport = "auto";
  std::vector<std::string> env_set, env_files, env_prefixes;
  bool no_default_env = false;
  bool print_env = false;
  std::string chdir;
  double grace_s = 5, heartbeat_timeout_s = 5;
  int connect_timeout_s = 10;
  std::vector<std::string> ssh_options;
  std::string ssh_config;
  bool no_multiplex = false;
  bool preflight = false;
  std::vector<std::string> sync_dirs, sync_excludes;
};

void add_launch_flags(CLI::App& app, LaunchFlags& flags, launch::LaunchOptions& options) {
  add_host_options(app, flags.hosts);
  app.add_flag("--per-node", options.per_node,
               "one process per node; {node_rank} {nnodes} {master_addr} {master_port} {nproc_per_node} "
               "{world_size} {job_id} are substituted in the command (for torchrun/deepspeed/accelerate)");
  app.add_option("--transport", flags.transport,
                 "how to start the agents: auto (local for localhost; slurm (srun) inside a Slurm allocation when "
                 "no -H/-w is given; else ssh), ssh, slurm, local")
      ->check(CLI::IsMember({"auto", "ssh", "slurm", "local"}));
  app.add_option("--env", flags.env_set, "K=V to set on every worker, or K to copy the head's value")->group("Environment");
  app.add_option("--env-file", flags.env_files, "dotenv-style file of K=V lines (like .deepspeed_env)")
      ->group("Environment");
  app.add_option("--env-prefix", flags.env_prefixes, "also propagate the head's variables with this prefix")
      ->group("Environment");
  app.add_flag("--no-default-env", flags.no_default_env,
               "propagate only what --env/--env-file/--env-prefix name (remote nodes; local workers inherit "
               "this machine's environment)")
      ->group("Environment");
  app.add_flag("--print-env", flags.print_env, "print each node's environment and exit (secrets redacted)")
      ->group("Environment");
  app.add_flag("--preflight", flags.preflight,
               "check the nodes first (the fast part of `muster doctor`: versions, names, code, interfaces, "
               "GPUs); start nothing if that finds errors");
  app.add_option("--sync", flags.sync_dirs,
                 "first make DIR identical at the same path on every node (as `muster sync DIR`; repeatable)");
  app.add_option("--sync-exclude", flags.sync_excludes, "leave PATTERN out of --sync (gitignore syntax)");
  app.add_option("--chdir", flags.chdir, "working directory of the workers (default: the current one)");
  app.add_option("--master-addr", options.master_addr, "MASTER_ADDR (default: the address node 0 was reached on; slurm: node 0's name)");
  app.add_option("--grace", flags.grace_s, "seconds between SIGTERM and SIGKILL when stopping ranks")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--heartbeat-timeout", flags.heartbeat_timeout_s, "seconds of silence before a node counts as lost")
      ->check(CLI::Range(0.5, 3600.0));
  app.add_option("--max-restarts", options.max_restarts, "restart the whole job up to N times after a failure")
      ->check(CLI::Range(0, 1000));
  app.add_option("--run-dir", options.run_dir, "where rank logs and manifest.json go (default muster-runs/<job>)");
  app.add_option("--job-id", options.job_id, "job id (default: time + random)");
  app.add_option("--prefix", options.prefix_format, "line prefix: {node} {rank} {local_rank} {node_rank} {stream}")
      ->group("Output");
  app.add_option("--ranks", options.ranks_shown, "ranks shown on the terminal, e.g. 0 or 0,2-3 (all are logged)")
      ->group("Output");
  app.add_flag("-q,--quiet", options.quiet, "no muster notices except failures")->group("Output");
  app.add_option("--connect-timeout", flags.connect_timeout_s, "seconds to reach a node")->group("ssh")
      ->check(CLI::Range(1, 600));
  app.add_option("--ssh-option", flags.ssh_options, "extra ssh -o option, e.g. Port=2222")->group("ssh");
  app.add_option("--ssh-config", flags.ssh_config, "ssh -F FILE instead of ~/.ssh/config")->group("ssh");
  app.add_flag("--no-multiplex", flags.no_multiplex, "no ssh ControlMaster connection sharing")->group("ssh");
}

Result<void> fill_options(const LaunchFlags& flags, launch::LaunchOptions& options) {
  auto nodes = resolve_hosts(flags.hosts);
  if (!nodes) return nodes.error();
  options.plan = cluster::make_rank_plan(*nodes);
  options.devices_filtered = !flags.hosts.selection.include.empty() || !flags.hosts.selection.exclude.empty();
  auto transport = choose_transport(flags.transport, flags.hosts, *nodes);
  if (!transport) return transport.error();
  options.transport = *transport;
  // Slurm's node names resolve on every node of the cluster (what `scontrol show hostnames | head -1` gives).
  if (options.transport == head::TransportKind::slurm && options.master_addr.empty() && !options.plan.nodes.empty()) {
    options.master_addr = options.plan.nodes.front().host.name;
  }
  for (const auto& text : posix::current_environment()) {
    auto eq = text.find('=');
    if (eq != std::string::npos) options.head_env[text.substr(0, eq)] = text.substr(eq + 1);
  }
  options.env_policy.set = flags.env_set;
  options.env_policy.extra_prefixes = flags.env_prefixes;
  options.env_policy.propagate_defaults = !flags.no_default_env;
  for (const auto& path : flags.env_files) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    options.env_policy.files.push_back({path, *text});
  }
  if (auto env = launch::propagated_env(options.head_env, options.env_policy); !env) return env.error();
  options.cwd = flags.chdir.empty() ? std::filesystem::current_path().string() : flags.chdir;
  options.grace_ms = static_cast<int>(flags.grace_s * 1000);
  options.heartbeat_timeout_ms = static_cast<int>(flags.heartbeat_timeout_s * 1000);
  options.heartbeat_ms = std::clamp(options.heartbeat_timeout_ms / 5, 100, 1000);
  options.ssh.connect_timeout_s = flags.connect_timeout_s;
  options.ssh.extra_options = flags.ssh_options;
  options.ssh.multiplex = !flags.no_multiplex;
  options.ssh.config_file = flags.ssh_config;
  options.is_tty = posix::is_terminal(1);
  options.color = options.is_tty && std::getenv("NO_COLOR") == nullptr;
  return {};
}

int print_env(const launch::LaunchOptions& options) {
  auto propagated = launch::propagated_env(options.head_env, options.env_policy).value();
  launch::JobInfo job{"<job id>", options.master_addr.empty() ? "<address of node 0>" : options.master_addr, 0,
                      0, options.max_restarts, 0};
  std::vector<launch::EnvListing> listings;
  for (const auto& node : options.plan.nodes) {
    std::vector<std::pair<std::string, launch::EnvList>> processes;
    if (options.per_node) {
      processes.emplace_back("node process", launch::per_node_rank_env(options.plan, node, job));
    } else {
      for (const auto& rank : node.ranks) {
        processes.emplace_back(fmt::format("rank {}", rank.global_rank), launch::rank_env(options.plan, node, rank, job));
      }
    }
    for (auto& [name, env] : processes) env = launch::overlay_env(propagated, env);
    listings.push_back(launch::make_env_listing(fmt::format("node {} ({})", node.node_rank, node.host.name), processes));
  }
  fmt::print("{}", launch::format_env_listing(listings));
  if (options.transport == head::TransportKind::local) {
    fmt::print("# local transport: workers also inherit this machine's environment (as torchrun's do);\n"
               "# the list above is what muster sets or propagates, and all that travels to remote nodes.\n");
  }
  fmt::print("# MASTER_PORT is picked free on node 0 when the job starts.\n");
  return kExitOk;
}

// The job's interpreter, for the doctor's package versions: the command itself when it is a python.
std::string job_python(const std::vector<std::string>& command) {
  std::string program = command.front().substr(command.front().rfind('/') + 1);
  return program.rfind("python", 0) == 0 ? command.front() : "python3";
}

int run_preflight(const LaunchFlags& flags, const launch::LaunchOptions& options) {
  posix::SignalBlock signals;
  PoolFlags pool_flags{flags.hosts, flags.connect_timeout_s, flags.ssh_config};
  std::vector<std::string> names;
  auto pool = connect_pool(pool_flags, names);
  if (!pool) return report_error(pool.error());
  DiagnoseOptions diagnose_options;
  diagnose_options.python = job_python(options.command);
  diagnose_options.paths = {options.cwd};
  diagnose_options.ssh_matrix = false;  // the job itself needs only head -> node ssh
  diagnose_options.shared_fs = false;
  bool even = std::all_of(options.plan.nodes.begin(), options.plan.nodes.end(), [&](const cluster::NodePlan& node) {
    return node.ranks.size() == options.plan.nodes.front().ranks.size();
  });
  diagnose_options.slots_per_node = even ? static_cast<int>(options.plan.nodes.front().ranks.size()) : -1;
  auto findings = diagnose(**pool, names, diagnose_options);
  (*pool)->shutdown(3000);
  if (!findings) return report_error(findings.error());
  int verdict = doctor::exit_code(*findings);
  if (verdict == 0) {
    if (!options.quiet) fmt::print(stderr, "muster: preflight: {} checks passed\n", findings->size());
    return kExitOk;
  }
  bool color = posix::is_terminal(2) && std::getenv("NO_COLOR") == nullptr;
  fmt::print(stderr, "{}", doctor::format_report(*findings, names, color));
  if (verdict == 1) return kExitOk;  // warnings: the job may still run
  fmt::print(stderr, "muster launch: the preflight found errors; nothing was started (fix them, or run without "
                     "--preflight)\n");
  return kExitFailure;
}

// `--sync DIR...`: every directory made identical on the nodes before anything starts.
int run_presync(const LaunchFlags& flags, const launch::LaunchOptions& options) {
  posix::SignalBlock signals;
  PoolFlags pool_flags{flags.hosts, flags.connect_timeout_s, flags.ssh_config};
  for (const auto& dir : flags.sync_dirs) {
    SyncFlags sync_flags;
    sync_flags.source = dir;
    sync_flags.excludes = flags.sync_excludes;
    auto request = make_sync_request(sync_flags);
    if (!request) return report_error(request.error());
    std::vector<std::string> names;
    auto report = sync_to_hosts(pool_flags, *request, sync_flags.fanout, false, names);
    if (!report) {
      fmt::print(stderr, "muster launch: --sync {} failed; nothing was started\n", dir);
      return report_error(report.error());
    }
    if (!options.quiet) {
      uint64_t files = 0, bytes = 0;
      for (const auto& node : report->nodes) files += node.files_done, bytes += node.bytes_done;
      fmt::print(stderr, "muster: synced {} to {} node{} ({} files, {} moved)\n", request->destination, names.size(),
                 names.size() == 1 ? "" : "s", files, format_size(bytes));
    }
  }
  return kExitOk;
}

}  // namespace

int run_launch(const std::vector<std::string>& args) {
  auto app = make_app("launch", "Start a command on every node and slot, torchrun-compatible; stream its logs; "
                                "stop every rank when one fails.\n  muster launch -w 'node[1-4]' --nproc-per-node 2 "
                                "-- python3 train.py --lr 0.1");
  app->prefix_command();  // everything from the first non-option on is the command, untouched
  LaunchFlags flags;
  launch::LaunchOptions options;
  add_launch_flags(*app, flags, options);
  if (auto code = parse_command_line(*app, args)) return *code;
  // prefix_command() stops at the first argument it does not know: a command, or a mistyped option. A command
  // that itself starts with '-' needs `--` in front of it.
  options.command = app->remaining();
  if (!options.command.empty() && options.command.front() == "--") {
    options.command.erase(options.command.begin());
  } else if (!options.command.empty() && options.command.front().starts_with('-')) {
    return report_unknown_option(*app, options.command.front());
  }
  if (options.command.empty()) {
    fmt::print(stderr, "muster launch: no command given (usage: muster launch [options] -- cmd args...)\n");
    return kExitUsage;
  }
  if (auto filled = fill_options(flags, options); !filled) return report_error(filled.error());
  if (flags.print_env) return print_env(options);
  if (!flags.sync_dirs.empty()) {
    if (int code = run_presync(flags, options); code != kExitOk) return code;
  }
  if (flags.preflight) {
    if (int code = run_preflight(flags, options); code != kExitOk) return code;
  }
  auto code = launch::run_launch(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
