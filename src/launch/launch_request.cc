#include "launch/launch_request.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>

#include "doctor/examine.h"
#include "doctor/checks/report.h"
#include "head/connect.h"
#include "launch/detach.h"
#include "launch/head_env.h"
#include "launch/launcher.h"
#include "launch/node_caches.h"
#include "launch/worker_env.h"
#include "posix/signals.h"
#include "posix/terminal.h"
#include "diagnosis/catalogue.h"
#include "sync_head/run_sync.h"
#include "sync_head/sync_view.h"
#include "util/random.h"

namespace muster::launch {
namespace {

Result<EnvList> environment_of(const LaunchRequest& request) {
  return head_environment({request.env_set, request.env_files, request.env_prefixes, request.no_default_env});
}

head::ConnectOptions connect_options(const LaunchRequest& request) {
  head::ConnectOptions options{request.hosts, request.connect_timeout_s, request.ssh_config, request.ssh_kex,
                               request.job.fanout};
  options.ssh_cipher = request.ssh_cipher;
  return options;
}

// --preflight: the fast part of `muster doctor` (no N×N ssh, no shared-filesystem test). Errors stop the launch.
Result<void> run_preflight(const LaunchRequest& request, const LaunchOptions& options) {
  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = head::connect_pool(connect_options(request), names);
  if (!pool) return pool.error();
  doctor::ExamineOptions examine;
  examine.python = options.python;
  examine.paths = {options.cwd};
  examine.ssh_matrix = doctor::SshMatrixMode::off;  // the job itself needs only head -> node ssh
  examine.shared_fs = false;
  examine.gpu = doctor::GpuRound::when_present;  // GPU health (doctor --gpu) where there are GPUs
  // The job's caches on a shared filesystem (unless --node-local-caches moved them), as the job will see them.
  examine.shared_caches = !options.node_local_caches;
  for (const auto& [name, value] : options.propagated_env) {
    const auto& caches = doctor::cache_variables();
    if (std::find(caches.begin(), caches.end(), name) != caches.end()) examine.job_env.push_back(name + "=" + value);
  }
  bool even = std::all_of(options.plan.nodes.begin(), options.plan.nodes.end(), [&](const cluster::NodePlan& node) {
    return node.ranks.size() == options.plan.nodes.front().ranks.size();
  });
  if (options.container && !options.container->image.empty()) {
    examine.container_image = options.container->image;
    examine.container_runtime = options.container->runtime;
  }
  examine.slots_per_node = even ? static_cast<int>(options.plan.nodes.front().ranks.size()) : -1;
  auto findings = doctor::examine_findings(**pool, names, examine);
  (*pool)->shutdown(3000);
  if (!findings) return findings.error();
  int verdict = doctor::exit_code(*findings);
  if (verdict == 0) {
    if (!options.quiet) fmt::print(stderr, "muster: preflight: {} checks passed\n", findings->size());
    return {};
  }
  bool color = posix::is_terminal(2) && std::getenv("NO_COLOR") == nullptr;
  fmt::print(stderr, "{}", doctor::format_report(*findings, names, color));
  if (verdict == 1) return {};  // warnings: the job may still run
  return make_error(ErrorKind::remote, "launch: the preflight found errors; nothing was started (fix them, or "
                                       "run without --preflight)");
}

// --sync DIR...: every directory made identical on the nodes before anything starts.
Result<void> run_presync(const LaunchRequest& request, const LaunchOptions& options) {
  for (const auto& dir : request.sync_dirs) {
    sync_head::SyncOptions sync;
    sync.connect = connect_options(request);
    sync.source = dir;
    sync.excludes = request.sync_excludes;
    sync.quiet = true;
    auto report = sync_head::run_sync(sync);
    if (!report) {
      fmt::print(stderr, "muster launch: --sync {} failed; nothing was started\n", dir);
      return report.error();
    }
    if (!options.quiet) {
      uint64_t files = 0, bytes = 0;
      for (const auto& node : report->nodes) files += node.files_done, bytes += node.bytes_done;
      size_t nodes = report->nodes.size();
      fmt::print(stderr, "muster: synced {} to {} node{} ({} files, {} moved)\n", report->destination, nodes,
                 nodes == 1 ? "" : "s", files, sync_head::format_size(bytes));
    }
  }
  return {};
}

// --node-local-caches: a private cache directory made on every node, and the job's cache variables pointing there.
Result<void> make_node_caches(const LaunchRequest& request, LaunchOptions& options) {
  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = head::connect_pool(connect_options(request), names);
  if (!pool) return pool.error();
  auto envs = prepare_node_caches(**pool, names, options.node_cache_base, options.propagated_env);
  (*pool)->shutdown(3000);
  if (!envs) return envs.error();
  // The pool is in host order, which is node-rank order (the plan's nodes come from the same host list).
  if (envs->size() != options.plan.nodes.size()) {
    return make_error(ErrorKind::internal, "--node-local-caches: {} nodes answered, the plan has {}", envs->size(),
                      options.plan.nodes.size());
  }
  options.node_env = std::move(*envs);
  if (!options.quiet) {
    std::string base = options.node_cache_base.empty() ? "/tmp/muster-cache-<uid>" : options.node_cache_base;
    fmt::print(stderr, "muster: node-local caches in {}/<host> on each node\n", base);
  }
  return {};
}

}  // namespace

Result<LaunchOptions> resolve_launch(const LaunchRequest& request) {
  LaunchOptions options = request.job;
  if (!options.job_id.empty()) {  // a file name in the registry, a directory and container name
    if (auto why = job_id_problem(options.job_id); !why.empty()) return make_error(ErrorKind::usage, "--job-id: {}", why);
  }
  auto nodes = head::resolve_hosts(request.hosts);
  if (!nodes) return nodes.error();
  options.plan = cluster::make_rank_plan(*nodes);
  const auto& selection = request.hosts.selection;
  options.devices_filtered = !selection.include.empty() || !selection.exclude.empty();
  auto transport = head::choose_transport(request.transport, request.hosts, *nodes);
  if (!transport) return transport.error();
  options.transport = *transport;
  options.virtual_nodes = options.transport == transport::TransportKind::local && !head::all_local(*nodes);
  auto env = environment_of(request);
  if (!env) return env.error();
  options.propagated_env = std::move(*env);
  options.cwd = request.chdir.empty() ? std::filesystem::current_path().string() : request.chdir;
  if (!options.node_cache_base.empty()) options.node_local_caches = true;
  if (options.job_id.empty()) options.job_id = new_job_id();  // known before any agent starts (container names)
  auto container = resolve_container(request.container, options.cwd, request.sync_dirs);
  if (!container) return container.error();
  options.container = std::move(*container);
  options.grace_ms = static_cast<int>(request.grace_s * 1000);
  options.heartbeat_timeout_ms = static_cast<int>(request.heartbeat_timeout_s * 1000);
  options.heartbeat_ms = std::clamp(options.heartbeat_timeout_ms / 5, 100, 1000);
  options.ssh.connect_timeout_s = request.connect_timeout_s;
  options.ssh.extra_options = request.ssh_options;
  options.ssh.multiplex = !request.no_multiplex;
  options.ssh.config_file = request.ssh_config;
  options.ssh.kex = request.ssh_kex;
  options.ssh.cipher = request.ssh_cipher;
  options.hang_timeout_ms = static_cast<int64_t>(request.hang_timeout_s * 1000);
  options.kill_on_hang = request.on_hang != "dump";
  options.python = job_python(options.command);
  auto catalogue = diagnosis::load_catalogues(request.failure_files);
  if (!catalogue) return catalogue.error();
  options.catalogue = std::move(*catalogue);
  if (auto restarts = resolve_restarts(request, options); !restarts) return restarts.error();
  options.is_tty = posix::is_terminal(1);
  options.color = options.is_tty && std::getenv("NO_COLOR") == nullptr;
  return options;
}

Result<int> run_launch_request(const LaunchRequest& request) {
  auto options = resolve_launch(request);
  if (!options) return options.error();
  if (request.print_env) {
    fmt::print("{}", format_worker_envs(*options));
    return 0;
  }
  if (request.detach && options->transport == transport::TransportKind::slurm) {
    return make_error(ErrorKind::usage,
                      "--detach: inside a Slurm allocation the job lives only as long as the allocation (its batch "
                      "script or salloc shell), so a detached head would end with it; submit the job instead "
                      "(muster submit: the batch job outlives your terminal; muster ps, attach, logs and stop work "
                      "on the node that runs it), or launch over ssh (-H/-w)");
  }
  if (!request.sync_dirs.empty()) {
    if (auto synced = run_presync(request, *options); !synced) return synced.error();
  }
  if (options->node_local_caches) {
    if (auto made = make_node_caches(request, *options); !made) return made.error();
  }
  if (request.preflight) {
    if (auto checked = run_preflight(request, *options); !checked) return checked.error();
  }
  auto code = request.detach ? run_detached(*options) : run_launch(*options);
  if (!code && options->container) return explain_container_error(code.error(), *options->container);
  return code;
}

}  // namespace muster::launch
