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
#include "doctor/bandwidth_table.h"
#include "doctor/report.h"
#include "posix/signals.h"
#include "posix/terminal.h"

namespace muster::cli {

int run_doctor(const std::vector<std::string>& args) {
  auto app = make_app("doctor", "Check the whole cluster and say what to fix, per node: names, ssh between every pair "
                                "of nodes, versions, code, shared filesystems, network interfaces for NCCL/gloo, "
                                "shm/memlock, GPUs, clocks; with --bandwidth, throughput and latency between nodes.");
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
  bool bandwidth = false;
  std::string bandwidth_mode = "ring";
  BandwidthOptions bandwidth_options;
  app->add_flag("--bandwidth", bandwidth,
                "also measure TCP throughput and latency between nodes (bounded: see --bandwidth-seconds) and flag "
                "slow links");
  app->add_option("--bandwidth-mode", bandwidth_mode,
                  "ring: each node sends to the next, all at once (one round); pairs: every ordered pair, in N-1 "
                  "rounds of disjoint pairs")
      ->check(CLI::IsMember({"ring", "pairs"}))
      ->capture_default_str();
  app->add_option("--bandwidth-seconds", bandwidth_options.seconds,
                  "how long each round streams, after a 0.25 s warm-up that is not counted")
      ->check(CLI::Range(0.2, 60.0))
      ->capture_default_str();
  if (auto code = parse_command_line(*app, args)) return *code;
  if (bandwidth) {
    bandwidth_options.mode = *doctor::parse_bandwidth_mode(bandwidth_mode);
    options.bandwidth = bandwidth_options;
  }
  if (options.paths.empty()) options.paths.push_back(std::filesystem::current_path().string());
  options.ssh_matrix = !no_ssh_matrix;
  options.slots_per_node = pool_flags.hosts.selection.nproc_per_node;

  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = connect_pool(pool_flags, names);
  if (!pool) return report_error(pool.error());
  auto diagnosis = diagnose_all(**pool, names, options);
  (*pool)->shutdown(3000);
  if (!diagnosis) return report_error(diagnosis.error());
  const auto& findings = diagnosis->findings;
  if (json) {
    auto report = doctor::report_json(findings, names);
    if (diagnosis->bandwidth) report["bandwidth"] = doctor::bandwidth_json(names, *diagnosis->bandwidth);
    fmt::print("{}\n", report.dump(2));
  } else {
    bool color = posix::is_terminal(1) && std::getenv("NO_COLOR") == nullptr;
    fmt::print("{}", doctor::format_report(findings, names, color));
  }
  return doctor::exit_code(findings);
}

}  // namespace muster::cli
