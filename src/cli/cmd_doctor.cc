// `muster doctor`: connects to every node, runs the checks (cli/diagnose.h) and prints what to fix per node.
// Exit 0 all good, 1 warnings, 2 errors (see doctor/report.h).
#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>

#include "cli/diagnose.h"
#include "cli/exit_codes.h"
#include "cli/node_pool.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "doctor/report.h"
#include "posix/signals.h"
#include "posix/terminal.h"

namespace muster::cli {

int run_doctor(const std::vector<std::string>& args) {
  auto app = make_app("doctor", "Check the whole cluster and say what to fix, per node: names, ssh between every pair "
                                "of nodes, versions, code, shared filesystems, network interfaces for NCCL/gloo, "
                                "shm/memlock, GPUs, clocks.");
  PoolFlags pool_flags;
  DiagnoseOptions options;
  bool json = false, no_ssh_matrix = false;
  add_host_options(*app, pool_flags.hosts);
  add_pool_flags(*app, pool_flags);
  app->add_option("--python", options.python, "the interpreter the job will use (default python3 in PATH)");
  app->add_option("--path", options.paths, "a code or data directory that must be identical on every node "
                                           "(default: the current directory)");
  app->add_flag("--json", json, "print the findings as JSON (schema in doctor/report.h)");
  app->add_flag("--import-torch", options.import_torch,
                "import torch on every node to check that it sees the GPUs and its NCCL (~1.5 s of CPU per node)");
  app->add_flag("--no-ssh-matrix", no_ssh_matrix, "skip the N×N node-to-node ssh check");
  options.master_port = 29500;
  app->add_option("--master-port", options.master_port,
                  "check this port is free on the first node and reachable from all (0: skip)")
      ->capture_default_str();
  if (auto code = parse_command_line(*app, args)) return *code;
  if (options.paths.empty()) options.paths.push_back(std::filesystem::current_path().string());
  options.ssh_matrix = !no_ssh_matrix;
  options.slots_per_node = pool_flags.hosts.selection.nproc_per_node;

  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = connect_pool(pool_flags, names);
  if (!pool) return report_error(pool.error());
  auto findings = diagnose(**pool, names, options);
  (*pool)->shutdown(3000);
  if (!findings) return report_error(findings.error());
  if (json) {
    fmt::print("{}\n", doctor::report_json(*findings, names).dump(2));
  } else {
    bool color = posix::is_terminal(1) && std::getenv("NO_COLOR") == nullptr;
    fmt::print("{}", doctor::format_report(*findings, names, color));
  }
  return doctor::exit_code(*findings);
}

}  // namespace muster::cli
